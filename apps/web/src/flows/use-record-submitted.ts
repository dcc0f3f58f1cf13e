import { useCallback } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { followReplacement } from '@unit/protocol';
import { useConfig } from '../api/config';
import { telegramNotification, useTelegramNotify } from '../api/notify';
import { vaultQueryOptions } from '../api/vault';
import { useWallet } from '../wallet';
import { NOTICES, type FlowDecl } from './declarations';
import type { FlowResultIds } from './engine';
import type { FlowInput } from './flow-types';
import type { FlowBannerActions } from './flow-banner';
import type { PendingUpdate } from './pending-store';
import { pendingEntry, type FlowPreview } from './preview';

/**
 * What a submitted transaction leaves behind, whether its flow is still on screen or not: the
 * Telegram notice, the pending entry, the 'submitted' banner and the refreshed queries, each as
 * the flow's declaration says.
 */
export function useRecordSubmitted(updatePending: PendingUpdate, banner: FlowBannerActions) {
  const config = useConfig();
  const wallet = useWallet();
  const queryClient = useQueryClient();
  const notifyTelegram = useTelegramNotify();
  return useCallback(
    (decl: FlowDecl, input: FlowInput, preview: FlowPreview, result: FlowResultIds) => {
      // SPEC §7: Telegram notify 5 s later, in the background; it never holds the flow up.
      const account = wallet.account;
      if (account) {
        const vaultId =
          result.vaultId ??
          queryClient.getQueryData(vaultQueryOptions(account.vaultPubkey).queryKey)?.vault_id ??
          '';
        // A speed-up tells of the action it sped up, under its new txid.
        const action = decl.noticeAction(input.target);
        const notice = NOTICES[action];
        notifyTelegram(
          telegramNotification({
            network: config.network,
            address: account.satsAddress,
            action,
            txid: result.txid,
            vaultId,
            btcSats: notice.btc ? input.sats : 0n,
            unitCents: notice.unit ? input.cents : 0n,
          }),
          notice.retries,
        );
      }
      const type = decl.pendingType;
      if (type) {
        updatePending((list) => [
          ...list,
          pendingEntry(type, input, preview, result, Math.floor(Date.now() / 1000)),
        ]);
      } else {
        // The entry of the transaction sped up follows the replacement; none is added.
        const replaced = result.replacedTxid;
        if (replaced) updatePending((list) => followReplacement(list, replaced, result.txid));
      }
      // SPEC §4: the 'submitted' banner shows the txid; it turns success once a block confirms it.
      banner.submitted(decl, result.txid);
      for (const key of decl.refresh.now) void queryClient.invalidateQueries({ queryKey: [key] });
      const later = decl.refresh.later;
      if (later)
        setTimeout(() => {
          for (const key of later.keys) void queryClient.invalidateQueries({ queryKey: [key] });
        }, later.afterMs);
    },
    [banner, config.network, notifyTelegram, queryClient, updatePending, wallet.account],
  );
}

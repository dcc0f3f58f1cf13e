// A pending entry completes when a confirmed history record holds its transaction (SPEC §4); one
// that will never be mined (a claim its liquidated vault's owner beat by the exit, a transaction
// whose input another spent, one the chain refused) never gets that record. So each time the
// vault's history is read (on load, and when the live stream says the vault changed: not a poll)
// the server is asked the fate of every entry still waiting, and a failed one is dropped and said
// once, which frees the actions it held.
import { useCallback, useRef } from 'react';
import type { PendingTransaction, TransactionFateDto } from '@unit/protocol';
import { getTransactionFate } from '../api/transaction-fate';

export type FailedPending = (entry: PendingTransaction, fate: TransactionFateDto) => void;

/**
 * Returns the check: given the entries and the history just read, it asks about each entry still
 * in progress that no confirmed record holds (one question per entry at a time) and hands each
 * failed one to `onFailed`. A server that does not answer leaves the entry as it is.
 */
export function usePendingFates(onFailed: FailedPending) {
  const asking = useRef(new Set<string>());
  return useCallback(
    (
      pending: readonly PendingTransaction[],
      history: readonly { transaction_id: string; confirmed?: boolean }[],
    ) => {
      const confirmed = new Set(
        history.filter((r) => r.confirmed !== false).map((r) => r.transaction_id),
      );
      for (const entry of pending) {
        const txid = entry.transactionId;
        if (entry.status !== 'In Progress' || asking.current.has(txid)) continue;
        if (confirmed.has(txid) || (entry.vault_txid && confirmed.has(entry.vault_txid))) continue;
        asking.current.add(txid);
        getTransactionFate(txid)
          .then((fate) => {
            if (fate?.status === 'failed') onFailed(entry, fate);
          })
          // Unanswered: asked again on the next read of the history.
          .catch(() => undefined)
          .finally(() => asking.current.delete(txid));
      }
    },
    [onFailed],
  );
}

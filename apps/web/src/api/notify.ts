// Telegram (SPEC §7): POST /api/notify 5 s after a flow's transaction ids arrive; the create
// notification is retried 5 times at 5 s, the other actions not at all. A notification never blocks
// a flow: failures are only logged, and the server announces every transaction itself anyway (only
// the signed-in owner may post). "Enable Telegram Notification" asks the server for a one-time
// link to its bot (auth/EnableTelegram.tsx).
import { useCallback, useEffect, useRef } from 'react';
import { useMutation } from '@tanstack/react-query';
import {
  TELEGRAM_NOTIFY_DELAY_MS,
  TELEGRAM_NOTIFY_RETRIES_ACTION,
  TELEGRAM_NOTIFY_RETRIES_CREATE,
  TELEGRAM_NOTIFY_RETRY_DELAY_MS,
  type Network,
  type TelegramNotifyDto,
  type VaultAction,
} from '@unit/protocol';
import { getSession } from '../auth/session';
import { useConfig } from './config';
import { callApi } from './call';

export const postTelegramNotify = (dto: TelegramNotifyDto) => callApi('notify', { body: dto });

/**
 * SPEC §3 Telegram notify payload of a finished flow, as integers (sats, UNIT hundredths): the
 * flow's declaration says which amounts its action moved (the others are sent as 0).
 */
export function telegramNotification(o: {
  network: Network;
  address: string;
  action: VaultAction;
  txid: string;
  vaultId: string;
  btcSats: bigint;
  unitCents: bigint;
}): TelegramNotifyDto {
  return {
    network: o.network,
    address: o.address,
    tx_id: o.txid,
    tx_action: o.action,
    btc_amount: Number(o.btcSats),
    unit_amount: Number(o.unitCents),
    vault_id: o.vaultId,
  };
}

const notifyMutation = (retries: number) => ({
  mutationFn: postTelegramNotify,
  retry: retries,
  retryDelay: TELEGRAM_NOTIFY_RETRY_DELAY_MS,
  onError: (error: unknown, dto: TelegramNotifyDto) => {
    console.warn(`Telegram notification for ${dto.tx_id} failed`, error);
  },
});

/**
 * Returns `schedule(dto, retries)`: posts the notification TELEGRAM_NOTIFY_DELAY_MS later with its
 * action's retry policy (SPEC §7: TELEGRAM_NOTIFY_RETRIES_CREATE or _ACTION). Scheduled posts are
 * dropped if the app unmounts first.
 */
export function useTelegramNotify(): (dto: TelegramNotifyDto, retries: number) => void {
  // One mutation per policy: TanStack's retry cannot depend on the variables.
  const { mutate: notifyRetrying } = useMutation(notifyMutation(TELEGRAM_NOTIFY_RETRIES_CREATE));
  const { mutate: notifyOnce } = useMutation(notifyMutation(TELEGRAM_NOTIFY_RETRIES_ACTION));
  const timers = useRef(new Set<ReturnType<typeof setTimeout>>());
  useEffect(() => {
    const pending = timers.current;
    return () => {
      pending.forEach(clearTimeout);
      pending.clear();
    };
  }, []);
  return useCallback(
    (dto: TelegramNotifyDto, retries: number) => {
      const send = retries > 0 ? notifyRetrying : notifyOnce;
      const timer = setTimeout(() => {
        timers.current.delete(timer);
        // Only the signed-in owner may announce (the server refuses anyone else); without a
        // session the server's own message is the only one, so there is nothing to send.
        void getSession()
          .then((session) => {
            if (session?.address === dto.address) send(dto);
          })
          .catch(() => undefined);
      }, TELEGRAM_NOTIFY_DELAY_MS);
      timers.current.add(timer);
    },
    [notifyRetrying, notifyOnce],
  );
}

/**
 * POST /api/telegram/link: a one-time deep link to the bot for the signed-in address (the chat
 * that opens it is bound to the address, the code works once and expires). 503 not_configured
 * when the server has no bot.
 */
export const requestTelegramLink = () => callApi('telegramLink', {});

/** The bot's name when the server runs one; null means "not configured here". */
export function useTelegramBot(): string | null {
  return useConfig().telegramBot;
}

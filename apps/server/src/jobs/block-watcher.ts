// Blocks: the devnet instance that mined one announces it; on a public network the block watcher's
// leader polls the tip. The leader confirms history (and Telegram's) on each block it hears of.
import type { Logger } from 'pino';
import type { Chain } from '../chain/port';
import type { EventBus } from '../cluster';
import type { Guardian } from '../cosign';
import type { TelegramNotifier } from '../notify/telegram';
import type { LeaderJob } from './leader-job';

/**
 * After a confirmation pass that failed (a chain read timed out), the next try. Without it the
 * records of the block stay pending until the next block, ten minutes away on a real network.
 */
export const CONFIRM_RETRY_MS = 5_000;

export function blockWatcherJob(deps: {
  bus: EventBus;
  chain: Chain;
  onDevnet: boolean;
  guardian: Guardian;
  notifier: TelegramNotifier;
  log: Logger;
  retryMs?: number;
}): LeaderJob {
  const { bus, chain, onDevnet, guardian, notifier, log } = deps;
  const retryMs = deps.retryMs ?? CONFIRM_RETRY_MS;
  const announceBlock = (tip: { height: number }) =>
    void bus
      .publish({ type: 'block', data: { height: tip.height } })
      .catch((err: unknown) => log.error({ err }, 'block not announced'));
  let watching = false;
  let unwatch: (() => void) | null = null;
  let retry: ReturnType<typeof setTimeout> | null = null;
  const cancelRetry = () => {
    if (retry !== null) clearTimeout(retry);
    retry = null;
  };
  const confirm = (height?: number) => {
    cancelRetry();
    void guardian
      .onBlock()
      .then(() => notifier.scanHistory())
      // The owners of vaults near their term are warned once per warning (telegram-term-warnings.ts).
      .then(() => (height === undefined ? undefined : notifier.onBlock(height)))
      .catch((err: unknown) => {
        log.error({ err }, 'confirmations failed');
        // Tried again until a pass succeeds or the next block starts one of its own.
        if (watching && retry === null) {
          retry = setTimeout(() => {
            retry = null;
            if (watching) confirm(height);
          }, retryMs);
          retry.unref?.();
        }
      });
  };
  return {
    name: 'block-watcher',
    listen: () => [
      ...(onDevnet ? [chain.onBlock(announceBlock)] : []),
      bus.subscribe((event) => {
        if (event.type === 'block' && watching) confirm(event.data.height);
      }),
    ],
    start: () => {
      watching = true;
      if (!onDevnet) unwatch = chain.onBlock(announceBlock);
      confirm();
    },
    stop: () => {
      watching = false;
      cancelRetry();
      unwatch?.();
      unwatch = null;
    },
  };
}

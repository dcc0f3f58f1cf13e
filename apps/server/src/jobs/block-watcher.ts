// Blocks: the devnet instance that mined one announces it; on a public network the block watcher's
// leader polls the tip. The leader confirms history (and Telegram's) on each block it hears of.
import type { Logger } from 'pino';
import type { Chain } from '../chain/port';
import type { EventBus } from '../cluster';
import type { Guardian } from '../guardian';
import type { TelegramNotifier } from '../notify/telegram';
import type { LeaderJob } from './leader-job';

export function blockWatcherJob(deps: {
  bus: EventBus;
  chain: Chain;
  onDevnet: boolean;
  guardian: Guardian;
  notifier: TelegramNotifier;
  log: Logger;
}): LeaderJob {
  const { bus, chain, onDevnet, guardian, notifier, log } = deps;
  const announceBlock = (tip: { height: number }) =>
    void bus
      .publish({ type: 'block', data: { height: tip.height } })
      .catch((err: unknown) => log.error({ err }, 'block not announced'));
  let watching = false;
  let unwatch: (() => void) | null = null;
  const confirm = (height?: number) =>
    void guardian
      .onBlock()
      .then(() => notifier.scanHistory())
      // The owners of vaults near their term are warned once per warning (telegram-term-warnings.ts).
      .then(() => (height === undefined ? undefined : notifier.onBlock(height)))
      .catch((err: unknown) => log.error({ err }, 'confirmations failed'));
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
      unwatch?.();
      unwatch = null;
    },
  };
}

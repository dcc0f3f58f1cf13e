// The liquidation sweep runs on every price point, wherever it was recorded, in the one instance
// that leads it; on taking the lead it sweeps at once at the latest price. Telegram announces band
// changes after each sweep.
import type { Logger } from 'pino';
import type { EventBus } from '../cluster';
import { announceVaultChange } from '../cluster/vault-changes';
import type { Guardian } from '../cosign';
import type { TelegramNotifier } from '../notify/telegram';
import type { Oracle } from '../oracle/oracle';
import type { LeaderJob } from './leader-job';

/** What the sweep reports to the metrics; the HTTP layer's registry implements it. */
export interface SweepMetrics {
  sweepDone(priceTime: number): void;
  sweepLeading(leading: boolean): void;
}

export function liquidationSweepJob(deps: {
  bus: EventBus;
  guardian: Guardian;
  oracle: Oracle;
  notifier: TelegramNotifier;
  /** The sweep's gauges (http/metrics.ts), null when metrics are off. */
  metrics: SweepMetrics | null;
  log: Logger;
}): LeaderJob {
  const { bus, guardian, oracle, notifier, metrics, log } = deps;
  let sweeping = false;
  const sweep = (priceCents: number, time: number) =>
    void guardian
      .onPriceTick(priceCents, time)
      .then((liquidated) => {
        metrics?.sweepDone(time);
        for (const vault_id of liquidated)
          announceVaultChange(bus, { vault_id, kind: 'liquidation' }, log);
        return notifier.onPriceTick(priceCents);
      })
      .catch((err: unknown) => log.error({ err }, 'liquidation sweep failed'));
  return {
    name: 'liquidation-sweep',
    listen: () => [
      bus.subscribe((event) => {
        if (event.type === 'price' && sweeping)
          sweep(Math.round(event.data.USD * 100), event.data.time);
      }),
    ],
    start: () => {
      sweeping = true;
      metrics?.sweepLeading(true);
      // Never at a stale price (network mode: no quorum; off mode: live feeds that disagree).
      if (oracle.stale) return;
      const { priceCents, timestamp } = oracle.price();
      sweep(priceCents, timestamp);
    },
    stop: () => {
      sweeping = false;
      metrics?.sweepLeading(false);
    },
  };
}

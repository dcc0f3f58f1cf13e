// The oracle ticks in the leader; every price point reaches every instance over the bus, and each
// keeps its oracle's latest price current.
import type { Logger } from 'pino';
import type { PriceStaleReason } from '@unit/protocol';
import type { EventBus } from '../cluster';
import type { Oracle } from '../oracle/oracle';
import type { LeaderJob } from './leader-job';

/**
 * The bus's (and GET /api/events') price event for a price point; a stale one says why, so a page
 * pauses its actions at once (and a new stream's first event does not read as fresh).
 */
export const priceEvent = (
  point: { priceCents: number; timestamp: number },
  staleReason: PriceStaleReason | null = null,
) =>
  ({
    type: 'price',
    data: {
      USD: point.priceCents / 100,
      time: point.timestamp,
      ...(staleReason ? { stale: true, stale_reason: staleReason } : {}),
    },
  }) as const;

export function oracleTickJob(deps: { bus: EventBus; oracle: Oracle; log: Logger }): LeaderJob {
  const { bus, oracle, log } = deps;
  const onTick = (point: { priceCents: number; timestamp: number }) =>
    void bus
      .publish(priceEvent(point))
      .catch((err: unknown) => log.error({ err }, 'price tick not announced'));
  const onStale = (point: { priceCents: number; timestamp: number }) =>
    void bus
      .publish(priceEvent(point, oracle.staleCause))
      .catch((err: unknown) => log.error({ err }, 'stale price not announced'));
  return {
    name: 'oracle-tick',
    listen: () => {
      oracle.on('tick', onTick);
      oracle.on('stale', onStale);
      return [
        () => oracle.off('tick', onTick),
        () => oracle.off('stale', onStale),
        bus.subscribe((event) => {
          // a stale price is no new point: each instance judges its own price's age
          if (event.type === 'price' && event.data.stale !== true)
            oracle.observe({
              priceCents: Math.round(event.data.USD * 100),
              timestamp: event.data.time,
            });
        }),
        bus.onResync(() => void oracle.refresh().catch(() => undefined)),
      ];
    },
    // The previous holder's last ticks may not have reached this instance.
    start: async () => {
      await oracle.refresh();
      oracle.startTicking();
    },
    stop: () => oracle.stop(),
  };
}

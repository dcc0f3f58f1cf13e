// The oracle ticks in the leader; every price point reaches every instance over the bus, and each
// keeps its oracle's latest price current.
import type { Logger } from 'pino';
import type { EventBus } from '../cluster';
import type { Oracle } from '../oracle/oracle';
import type { LeaderJob } from './leader-job';

/** The bus's (and GET /api/events') price event for a price point. */
export const priceEvent = (point: { priceCents: number; timestamp: number }) =>
  ({ type: 'price', data: { USD: point.priceCents / 100, time: point.timestamp } }) as const;

export function oracleTickJob(deps: { bus: EventBus; oracle: Oracle; log: Logger }): LeaderJob {
  const { bus, oracle, log } = deps;
  const onTick = (point: { priceCents: number; timestamp: number }) =>
    void bus
      .publish(priceEvent(point))
      .catch((err: unknown) => log.error({ err }, 'price tick not announced'));
  return {
    name: 'oracle-tick',
    listen: () => {
      oracle.on('tick', onTick);
      return [
        () => oracle.off('tick', onTick),
        bus.subscribe((event) => {
          if (event.type === 'price')
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

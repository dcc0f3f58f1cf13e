import {
  ratioSeries,
  toWireNumber,
  type HistoryPointDto,
  type PricePointDto,
  type RatioPoint,
  type Sats,
  type TimePeriod,
  type UnitCents,
} from '@unit/protocol';

/**
 * The chart's points: one per bucket of the interval (SPEC §9), by @unit/protocol's ratioSeries.
 * When the vault's points are missing the current state stands for the whole period. Buckets without
 * debt are left out: an infinite ratio means nothing on this chart.
 */
export function chartSeries(
  prices: readonly PricePointDto[],
  points: readonly HistoryPointDto[] | undefined,
  current: { sats: Sats; debtCents: UnitCents },
  period: TimePeriod,
  nowSeconds: number,
): RatioPoint[] {
  const states: readonly HistoryPointDto[] = points?.length
    ? points
    : [
        {
          timestamp: 0,
          btc_locked: toWireNumber(current.sats),
          unit_borrowed: toWireNumber(current.debtCents),
          vaults: 1,
        },
      ];
  // The clock ticks once a minute; a point written since then still belongs in the last bucket.
  const end = Math.max(nowSeconds, ...states.map((p) => p.timestamp));
  return ratioSeries(states, prices, period, end).filter((p) => Number.isFinite(p.ratio));
}

// The price banner's change figure (SPEC §9: 'Price change cycles 24h, 7d, 30d, 1y'): which period
// comes next when it is clicked, and how the percent from GET /api/price-history reads.
import type { TimePeriod } from './api';

export const PRICE_CHANGE_PERIODS: readonly TimePeriod[] = ['24h', '7d', '30d', '1y'];

/** The period after `period` in SPEC §9's cycle, back to 24h after 1y. */
export function nextPriceChangePeriod(period: TimePeriod): TimePeriod {
  const i = PRICE_CHANGE_PERIODS.indexOf(period);
  return PRICE_CHANGE_PERIODS[(i + 1) % PRICE_CHANGE_PERIODS.length]!;
}

/**
 * Percent change from a period's first price to the price now, to two decimals: the one rule the
 * server's `change` and the header's figure share. 0 when the start is not a positive price.
 */
export function priceChangePercent(startUsd: number, nowUsd: number): number {
  if (!(startUsd > 0) || !Number.isFinite(nowUsd)) return 0;
  return Math.round(((nowUsd - startUsd) / startUsd) * 10_000) / 100;
}

/**
 * The header's change over a period: from the first price of the period's series to the price the
 * header shows, so the figure moves with every tick the header shows, whatever age the series'
 * later points have (the history is cached an hour; the price is pushed on every tick). Null
 * without a series or a price.
 */
export function periodPriceChange(
  series: readonly { price: number }[],
  nowUsd: number | null | undefined,
): number | null {
  const start = series[0]?.price;
  if (start === undefined || nowUsd == null || !Number.isFinite(nowUsd)) return null;
  return priceChangePercent(start, nowUsd);
}

export type PriceChangeDirection = 'up' | 'down' | 'flat';

/** '+2.31%', '−1.05%' (a true minus sign), '0.00%'; null for a figure that is not a number. */
export function formatPriceChange(
  change: number,
): { text: string; direction: PriceChangeDirection } | null {
  if (!Number.isFinite(change)) return null;
  const rounded = Math.round(change * 100) / 100;
  if (rounded === 0) return { text: '0.00%', direction: 'flat' };
  const digits = Math.abs(rounded).toLocaleString('en-US', {
    minimumFractionDigits: 2,
    maximumFractionDigits: 2,
  });
  return rounded > 0
    ? { text: `+${digits}%`, direction: 'up' }
    : { text: `\u2212${digits}%`, direction: 'down' };
}

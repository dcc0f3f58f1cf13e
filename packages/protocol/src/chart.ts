// Collateral ratio chart (SPEC §2 Chart, §9): intervals, axis and the bucketed ratio series.
import type { HistoryPointDto, PricePointDto, TimePeriod } from './api';
import { CHART_LIQUIDATION_LINE, CHART_Y_FLOOR, CHART_Y_TICKS, CHART_Y_TOP } from './constants';
import { collateralRatio } from './ratio';

export interface ChartInterval {
  period: TimePeriod;
  label: string;
  buckets: number;
  bucketSeconds: number;
}

export const CHART_INTERVALS: Record<TimePeriod, ChartInterval> = {
  '24h': { period: '24h', label: '1D', buckets: 288, bucketSeconds: 5 * 60 },
  '7d': { period: '7d', label: '1W', buckets: 168, bucketSeconds: 60 * 60 },
  '30d': { period: '30d', label: '1M', buckets: 120, bucketSeconds: 6 * 60 * 60 },
  '1y': { period: '1y', label: 'YTD', buckets: 365, bucketSeconds: 24 * 60 * 60 },
};

/** Button order of the chart (SPEC §2). */
export const CHART_PERIODS: readonly TimePeriod[] = ['24h', '7d', '30d', '1y'];

export const CHART_Y_AXIS = {
  min: CHART_Y_FLOOR,
  max: CHART_Y_TOP,
  ticks: CHART_Y_TICKS,
  liquidationLine: CHART_LIQUIDATION_LINE,
} as const;

export interface RatioPoint {
  /** unix seconds, end of the bucket */
  timestamp: number;
  /** the collateral ratio at that time (Infinity with no debt) */
  ratio: number;
  /** the ratio clamped to the axis, 125..500 */
  plotted: number;
}

export function clampToChart(ratio: number): number {
  if (Number.isNaN(ratio)) return CHART_Y_FLOOR;
  return Math.min(CHART_Y_TOP, Math.max(CHART_Y_FLOOR, ratio));
}

/** Index of the last element with timestamp <= t in an ascending list, or -1. */
function lastAtOrBefore<T extends { timestamp: number }>(sorted: readonly T[], t: number): number {
  let lo = 0;
  let hi = sorted.length - 1;
  let found = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (sorted[mid]!.timestamp <= t) {
      found = mid;
      lo = mid + 1;
    } else {
      hi = mid - 1;
    }
  }
  return found;
}

/**
 * One ratio per bucket of the interval ending at `now` (unix seconds): the vault state of the last
 * history point at or before the bucket's end, priced at the last price at or before it (the first
 * price when none precedes it). Buckets before the vault's first point are left out.
 */
export function ratioSeries(
  points: readonly HistoryPointDto[],
  prices: readonly PricePointDto[],
  period: TimePeriod,
  now: number,
): RatioPoint[] {
  const { buckets, bucketSeconds } = CHART_INTERVALS[period];
  const sortedPoints = [...points].sort((a, b) => a.timestamp - b.timestamp);
  const sortedPrices = [...prices].sort((a, b) => a.timestamp - b.timestamp);
  const series: RatioPoint[] = [];
  for (let i = 0; i < buckets; i++) {
    const t = now - (buckets - 1 - i) * bucketSeconds;
    const pi = lastAtOrBefore(sortedPoints, t);
    if (pi < 0) continue;
    const point = sortedPoints[pi]!;
    const qi = lastAtOrBefore(sortedPrices, t);
    const price = sortedPrices[Math.max(qi, 0)]?.price;
    const ratio = collateralRatio(point.btc_locked, point.unit_borrowed, price);
    series.push({ timestamp: t, ratio, plotted: clampToChart(ratio) });
  }
  return series;
}

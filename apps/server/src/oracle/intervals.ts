// Price history intervals and their aggregation (SPEC §9 Chart intervals).
import { priceChangePercent, type PricePointDto, type TimePeriod } from '@unit/protocol';
import type { PricePoint } from '../store/prices';

const MINUTE = 60;
const HOUR = 3600;
const DAY = 86_400;

/** SPEC §9: 24h 288 x 5 min, 7d 168 x 1 h, 30d 120 x 6 h, 1y 365 x 1 day. */
export const TIME_PERIODS: Record<TimePeriod, { buckets: number; seconds: number }> = {
  '24h': { buckets: 288, seconds: 5 * MINUTE },
  '7d': { buckets: 168, seconds: HOUR },
  '30d': { buckets: 120, seconds: 6 * HOUR },
  '1y': { buckets: 365, seconds: DAY },
};

/** First bucket start and the end of the last bucket, which holds `now`. */
export function periodRange(period: TimePeriod, now: number): { from: number; to: number } {
  const { buckets, seconds } = TIME_PERIODS[period];
  const to = Math.floor(now / seconds) * seconds + seconds;
  return { from: to - buckets * seconds, to };
}

/**
 * One point per bucket, the bucket's last price. An empty bucket carries the previous price
 * forward; with nothing before it, the current price stands in (SPEC §8: missing historical
 * price -> current price).
 */
export function aggregateBuckets(
  period: TimePeriod,
  now: number,
  points: PricePoint[],
  before: PricePoint | null,
  currentCents: number,
): PricePointDto[] {
  const { buckets, seconds } = TIME_PERIODS[period];
  const { from } = periodRange(period, now);
  const closes: Array<number | null> = Array.from({ length: buckets }, () => null);
  for (const p of points) {
    const index = Math.floor((p.timestamp - from) / seconds);
    if (index >= 0 && index < buckets) closes[index] = p.priceCents;
  }
  let carried = before?.priceCents ?? null;
  const firstKnown = closes.find((c) => c !== null) ?? currentCents;
  return closes.map((close, i) => {
    const cents = close ?? carried ?? firstKnown;
    carried = cents;
    return { timestamp: from + i * seconds, price: cents / 100 };
  });
}

/** Percent change from the first to the last point, to two decimals (the protocol's rule). */
export function percentChange(data: PricePointDto[]): number {
  const first = data[0]?.price;
  const last = data[data.length - 1]?.price;
  if (first === undefined || last === undefined) return 0;
  return priceChangePercent(first, last);
}

/**
 * Timestamps to back-fill before `now` so every chart bucket of every period has a point:
 * 5-minute points for the last 24 h, hourly for 7 d, 6-hourly for 30 d, daily for a year.
 * About 870 points instead of 105,000, so first start stays fast.
 */
export function backfillTimestamps(now: number): number[] {
  const tiers: Array<{ span: number; step: number }> = [
    { span: 366 * DAY, step: DAY },
    { span: 31 * DAY, step: 6 * HOUR },
    { span: 8 * DAY, step: HOUR },
    { span: DAY + HOUR, step: 5 * MINUTE },
  ];
  const stamps = new Set<number>();
  tiers.forEach(({ span, step }, i) => {
    const nextSpan = tiers[i + 1]?.span ?? 0;
    const start = Math.ceil((now - span) / step) * step;
    for (let t = start; t < now; t += step) {
      // A coarse tier stops where the finer one begins.
      if (t < now - nextSpan || nextSpan === 0) stamps.add(t);
    }
  });
  return [...stamps].sort((a, b) => a - b);
}

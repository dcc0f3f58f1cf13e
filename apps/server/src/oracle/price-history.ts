// GET /api/price-history answers (SPEC §7, §9) read from the per-bucket closes, each period's JSON
// cached until the next tick or bucket; and the thinning that keeps the stored prices small.
import type { Kysely } from 'kysely';
import type { PriceHistoryDto, TimePeriod } from '@unit/protocol';
import type { Database } from '../store/schema';
import {
  CLOSE_INTERVALS,
  priceClosesBetween,
  thinPriceCloses,
  thinPricePoints,
  type PricePoint,
} from '../store/prices';
import { aggregateBuckets, percentChange, periodRange, TIME_PERIODS } from './intervals';

const DAY = 86_400;
/** Raw ticks are kept a day; older ones live on as bucket closes. */
export const RAW_POINTS_KEPT_SECONDS = DAY;
/**
 * How long each width's closes are kept: twice the longest period that reads them, so every
 * period is whole even around a restart. Daily closes are kept for good (365 rows a year).
 */
const CLOSES_KEPT_SECONDS: Record<number, number | null> = {
  300: 2 * DAY,
  3600: 2 * 7 * DAY,
  21_600: 2 * 30 * DAY,
  86_400: null,
};
/** Rows per delete: a few milliseconds of SQLite work, then the event loop gets a turn. */
const THIN_BATCH = 1000;

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

export class PriceHistory {
  private readonly cache = new Map<TimePeriod, { key: string; json: string }>();

  constructor(private readonly db: Kysely<Database>) {}

  /** The period's answer: one close per bucket (SPEC §9 counts) and the change over it. */
  async answer(period: TimePeriod, now: number, current: PricePoint): Promise<PriceHistoryDto> {
    const { seconds } = TIME_PERIODS[period];
    const { from, to } = periodRange(period, now);
    const { closes, before } = await priceClosesBetween(this.db, seconds, from, to);
    const data = aggregateBuckets(period, now, closes, before, current.priceCents);
    return { data, change: percentChange(data), error: null };
  }

  /**
   * The answer serialised, from the cache while neither the price nor the period's last bucket has
   * moved: every request between two ticks gets the same bytes without touching the database.
   */
  async json(period: TimePeriod, now: number, current: PricePoint): Promise<string> {
    const key = `${periodRange(period, now).to}:${current.timestamp}:${current.priceCents}`;
    const hit = this.cache.get(period);
    if (hit?.key === key) return hit.json;
    const json = JSON.stringify(await this.answer(period, now, current));
    this.cache.set(period, { key, json });
    return json;
  }

  /**
   * Deletes raw points older than a day and closes older than their widths keep, in batches with
   * a turn of the event loop between them (a year of 30 s ticks is a million rows to drop once).
   */
  async thin(now: number): Promise<number> {
    let removed = 0;
    const drain = async (step: () => Promise<number>) => {
      for (;;) {
        const n = await step();
        removed += n;
        if (n < THIN_BATCH) return;
        await nextTurn();
      }
    };
    await drain(() => thinPricePoints(this.db, now - RAW_POINTS_KEPT_SECONDS, THIN_BATCH));
    for (const seconds of CLOSE_INTERVALS) {
      const kept = CLOSES_KEPT_SECONDS[seconds];
      if (kept == null) continue;
      await drain(() => thinPriceCloses(this.db, seconds, now - kept, THIN_BATCH));
    }
    return removed;
  }
}

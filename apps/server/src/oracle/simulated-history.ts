// The stored price series of the simulated source at a start: a year back-filled on an empty
// database, or the gap since the last stored point filled, so the chart has no hole where the
// server was down. Only a simulated price is ever made up: a live feed or the guardians' quorum
// starts stale and records only what it reads.
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { Database } from '../store/schema';
import { insertPricePoints, type PricePoint } from '../store/prices';
import { backfillTimestamps } from './intervals';
import type { PriceSource } from './price-source';

/** Gap fill after downtime uses 5-minute points (the finest chart bucket), capped in count. */
const GAP_STEP_SECONDS = 300;
const GAP_MAX_POINTS = 10_000;

export interface SimulatedHistoryInput {
  db: Kysely<Database>;
  source: PriceSource;
  /** the newest stored point, null on an empty database */
  latest: PricePoint | null;
  /** unix seconds */
  now: number;
  startPriceCents: number;
  log: Logger;
}

/** Back-fills or fills the gap, stores the points and returns the price to start from. */
export async function fillSimulatedHistory(input: SimulatedHistoryInput): Promise<PricePoint> {
  const { db, source, latest, now, startPriceCents, log } = input;
  if (!latest) {
    const anchor = { timestamp: now, priceCents: startPriceCents };
    const history = source.history(anchor, backfillTimestamps(now));
    await insertPricePoints(db, [...history, anchor]);
    log.info({ points: history.length + 1, source: source.name }, 'price history back-filled');
    return anchor;
  }
  const gap: PricePoint[] = [];
  const step = Math.max(GAP_STEP_SECONDS, Math.ceil((now - latest.timestamp) / GAP_MAX_POINTS));
  let previous = latest;
  for (let t = latest.timestamp + step; t <= now; t += step) {
    previous = { timestamp: t, priceCents: source.next(previous, t) };
    gap.push(previous);
  }
  if (gap.length === 0) return latest;
  await insertPricePoints(db, gap);
  log.info({ points: gap.length }, 'price gap filled');
  return previous;
}

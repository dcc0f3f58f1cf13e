// Stored oracle price points (SPEC §3 Oracle price entry): unix seconds and USD cents. Raw points
// are kept for a day; each chart bucket's close (SPEC §9) is kept in price_closes as points arrive,
// so a period's answer reads at most its bucket count of rows however long the oracle has run.
import type { Kysely } from 'kysely';
import type { Database } from './schema';

export interface PricePoint {
  timestamp: number;
  priceCents: number;
}

/** Bucket widths that keep closes: the four chart intervals of SPEC §9. */
export const CLOSE_INTERVALS = [300, 3600, 21_600, 86_400] as const;

/** Rows per statement: under SQLite's variable limit, and short enough not to stall the loop. */
const BATCH = 1000;

/** Each bucket's latest point among `points`, for one bucket width. */
function bucketCloses(points: PricePoint[], seconds: number) {
  const closes = new Map<number, PricePoint>();
  for (const p of points) {
    const bucket = Math.floor(p.timestamp / seconds) * seconds;
    const known = closes.get(bucket);
    if (!known || known.timestamp <= p.timestamp) closes.set(bucket, p);
  }
  return [...closes].map(([bucket, p]) => ({
    interval_seconds: seconds,
    bucket,
    timestamp: p.timestamp,
    price_cents: p.priceCents,
  }));
}

/**
 * Inserts points, ignoring timestamps already stored, and moves each touched bucket's close
 * forward when a point is later than the close it has. One transaction: a reader never sees a
 * point without its closes.
 */
export async function insertPricePoints(db: Kysely<Database>, points: PricePoint[]): Promise<void> {
  await db.transaction().execute(async (trx) => {
    for (let i = 0; i < points.length; i += BATCH) {
      const rows = points
        .slice(i, i + BATCH)
        .map((p) => ({ timestamp: p.timestamp, price_cents: p.priceCents }));
      await trx
        .insertInto('price_points')
        .values(rows)
        .onConflict((oc) => oc.column('timestamp').doNothing())
        .execute();
    }
    for (const seconds of CLOSE_INTERVALS) {
      const closes = bucketCloses(points, seconds);
      for (let i = 0; i < closes.length; i += BATCH) {
        await trx
          .insertInto('price_closes')
          .values(closes.slice(i, i + BATCH))
          .onConflict((oc) =>
            oc
              .columns(['interval_seconds', 'bucket'])
              .doUpdateSet((eb) => ({
                timestamp: eb.ref('excluded.timestamp'),
                price_cents: eb.ref('excluded.price_cents'),
              }))
              .where('price_closes.timestamp', '<=', (eb) => eb.ref('excluded.timestamp')),
          )
          .execute();
      }
    }
  });
}

export async function latestPricePoint(db: Kysely<Database>): Promise<PricePoint | null> {
  const row = await db
    .selectFrom('price_points')
    .selectAll()
    .orderBy('timestamp', 'desc')
    .limit(1)
    .executeTakeFirst();
  return row ? { timestamp: row.timestamp, priceCents: row.price_cents } : null;
}

/** Points with from <= timestamp < to, oldest first (raw points: the last day only). */
export async function pricePointsBetween(
  db: Kysely<Database>,
  from: number,
  to: number,
): Promise<PricePoint[]> {
  const rows = await db
    .selectFrom('price_points')
    .selectAll()
    .where('timestamp', '>=', from)
    .where('timestamp', '<', to)
    .orderBy('timestamp', 'asc')
    .limit(100_000)
    .execute();
  return rows.map((r) => ({ timestamp: r.timestamp, priceCents: r.price_cents }));
}

/**
 * The closes of `seconds`-wide buckets starting in [from, to), oldest first, and the last close
 * before `from` (what an empty first bucket carries forward). Primary-key range reads: at most
 * (to - from) / seconds + 1 rows.
 */
export async function priceClosesBetween(
  db: Kysely<Database>,
  seconds: number,
  from: number,
  to: number,
): Promise<{ closes: PricePoint[]; before: PricePoint | null }> {
  const [rows, before] = await Promise.all([
    db
      .selectFrom('price_closes')
      .select(['timestamp', 'price_cents'])
      .where('interval_seconds', '=', seconds)
      .where('bucket', '>=', from)
      .where('bucket', '<', to)
      .orderBy('bucket', 'asc')
      .limit(Math.ceil((to - from) / seconds))
      .execute(),
    db
      .selectFrom('price_closes')
      .select(['timestamp', 'price_cents'])
      .where('interval_seconds', '=', seconds)
      .where('bucket', '<', from)
      .orderBy('bucket', 'desc')
      .limit(1)
      .executeTakeFirst(),
  ]);
  const point = (r: { timestamp: number; price_cents: number }) => ({
    timestamp: r.timestamp,
    priceCents: r.price_cents,
  });
  return { closes: rows.map(point), before: before ? point(before) : null };
}

/**
 * Deletes at most `limit` rows older than `cutoff` from the raw points (or from one width's
 * closes), oldest first; returns how many went. Callers repeat it between turns of the event loop
 * until it returns less than `limit`, so no single statement holds SQLite for long.
 */
export async function thinPricePoints(
  db: Kysely<Database>,
  cutoff: number,
  limit: number,
): Promise<number> {
  const result = await db
    .deleteFrom('price_points')
    .where('timestamp', 'in', (eb) =>
      eb
        .selectFrom('price_points')
        .select('timestamp')
        .where('timestamp', '<', cutoff)
        .orderBy('timestamp', 'asc')
        .limit(limit),
    )
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

export async function thinPriceCloses(
  db: Kysely<Database>,
  seconds: number,
  cutoff: number,
  limit: number,
): Promise<number> {
  const result = await db
    .deleteFrom('price_closes')
    .where('interval_seconds', '=', seconds)
    .where('bucket', 'in', (eb) =>
      eb
        .selectFrom('price_closes')
        .select('bucket')
        .where('interval_seconds', '=', seconds)
        .where('bucket', '<', cutoff)
        .orderBy('bucket', 'asc')
        .limit(limit),
    )
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

export async function countPricePoints(db: Kysely<Database>): Promise<number> {
  const row = await db
    .selectFrom('price_points')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

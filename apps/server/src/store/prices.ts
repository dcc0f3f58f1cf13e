// Stored oracle price points (SPEC §3 Oracle price entry): unix seconds and USD cents.
import type { Kysely } from 'kysely';
import type { Database } from './schema';

export interface PricePoint {
  timestamp: number;
  priceCents: number;
}

/** Inserts points, ignoring timestamps already stored; batches keep statements under SQLite's variable limit. */
export async function insertPricePoints(db: Kysely<Database>, points: PricePoint[]): Promise<void> {
  const BATCH = 1000;
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

/** The last point at or before `timestamp`. */
export async function pricePointAtOrBefore(
  db: Kysely<Database>,
  timestamp: number,
): Promise<PricePoint | null> {
  const row = await db
    .selectFrom('price_points')
    .selectAll()
    .where('timestamp', '<=', timestamp)
    .orderBy('timestamp', 'desc')
    .limit(1)
    .executeTakeFirst();
  return row ? { timestamp: row.timestamp, priceCents: row.price_cents } : null;
}

/** Points with from <= timestamp < to, oldest first. */
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
    .execute();
  return rows.map((r) => ({ timestamp: r.timestamp, priceCents: r.price_cents }));
}

export async function countPricePoints(db: Kysely<Database>): Promise<number> {
  const row = await db
    .selectFrom('price_points')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

// Write limits shared by every instance on one PostgreSQL: a store for @fastify/rate-limit that
// counts a client's hits per route and fixed window with one upsert, so N instances behind a load
// balancer allow what one instance would (in memory each would allow its own share: N times the
// limit). SQLite runs one instance, which keeps the plugin's in-memory store.
import { sql, type Kysely, type Migration } from 'kysely';
import type { FastifyRateLimitStore, FastifyRateLimitStoreCtor } from '@fastify/rate-limit';
import type { Database, Int64 } from '../store/schema';

/** Hits of one client on one route (`bucket`) in one window starting at `window_start` (ms). */
export interface RateLimitHitsTable {
  bucket: string;
  window_start: Int64;
  hits: number;
}

declare module '../store/schema' {
  interface Database {
    rate_limit_hits: RateLimitHitsTable;
  }
}

export const rateLimitMigrations: Record<string, Migration> = {
  '0600_rate_limit_hits': {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('rate_limit_hits')
        .addColumn('bucket', 'text', (c) => c.notNull())
        .addColumn('window_start', 'bigint', (c) => c.notNull())
        .addColumn('hits', 'integer', (c) => c.notNull())
        .addPrimaryKeyConstraint('rate_limit_hits_pk', ['bucket', 'window_start'])
        .execute();
      // The sweep deletes past windows by this column alone.
      await db.schema
        .createIndex('rate_limit_hits_window')
        .on('rate_limit_hits')
        .column('window_start')
        .execute();
    },
    async down(db: Kysely<unknown>) {
      await db.schema.dropTable('rate_limit_hits').execute();
    },
  },
};

/** Counts hits in windows every instance agrees on; one per server (HTTP writes, guardian calls). */
export interface HitCounter {
  /**
   * Counts one hit of `bucket` in the fixed window (`windowMs` long, aligned on the clock) that
   * holds now; answers the window's hits, this one included, and the milliseconds left in it.
   */
  count(bucket: string, windowMs: number): Promise<{ current: number; ttl: number }>;
  /** The same answer without counting: no hits and no time left when the window has none. */
  peek(bucket: string, windowMs: number): Promise<{ current: number; ttl: number }>;
}

export function sharedHitCounter(
  db: Kysely<Database>,
  onSweepError: (error: unknown) => void,
  now: () => number = Date.now,
): HitCounter {
  let sweptAt = 0;
  // Windows before the previous one are deleted, at most once a window per instance and off the
  // request's path.
  const sweep = (t: number, windowMs: number) => {
    if (t - sweptAt < windowMs) return;
    sweptAt = t;
    db.deleteFrom('rate_limit_hits')
      .where('window_start', '<', t - 2 * windowMs)
      .execute()
      .catch(onSweepError);
  };
  const windowAt = (windowMs: number) => {
    const t = now();
    const start = Math.floor(t / windowMs) * windowMs;
    return { t, start, ttl: start + windowMs - t };
  };
  return {
    async count(bucket, windowMs) {
      const { t, start, ttl } = windowAt(windowMs);
      sweep(t, windowMs);
      const row = await db
        .insertInto('rate_limit_hits')
        .values({ bucket, window_start: start, hits: 1 })
        .onConflict((oc) =>
          oc.columns(['bucket', 'window_start']).doUpdateSet({
            hits: sql<number>`rate_limit_hits.hits + 1`,
          }),
        )
        .returning('hits')
        .executeTakeFirstOrThrow();
      return { current: Number(row.hits), ttl };
    },
    async peek(bucket, windowMs) {
      const { start, ttl } = windowAt(windowMs);
      const row = await db
        .selectFrom('rate_limit_hits')
        .select('hits')
        .where('bucket', '=', bucket)
        .where('window_start', '=', start)
        .executeTakeFirst();
      return row ? { current: Number(row.hits), ttl } : { current: 0, ttl: 0 };
    },
  };
}

type Answer = (error: Error | null, result?: { current: number; ttl: number }) => void;

/** The route a child store is for; the plugin adds it to the route's options (`routeInfo`). */
const routeOf = (options: object): { method: string; url: string } | undefined =>
  (options as { routeInfo?: { method: string; url: string } }).routeInfo;

/**
 * The store class to give @fastify/rate-limit (`store:`). A window is fixed, `timeWindow` long and
 * aligned on the clock, so every instance agrees on it; a client can spend a window's limit at its
 * end and the next one's at the start of the next, as with any fixed window.
 */
export function sharedRateLimitStore(counter: HitCounter): FastifyRateLimitStoreCtor {
  class SharedRateLimitStore implements FastifyRateLimitStore {
    constructor(
      _options: unknown,
      private readonly prefix = '',
    ) {}

    incr(key: string, answer: Answer, timeWindow: number): void {
      counter.count(this.prefix + key, timeWindow).then(
        (result) => answer(null, result),
        (error: Error) => answer(error),
      );
    }

    read(key: string, answer: Answer, timeWindow: number): void {
      counter.peek(this.prefix + key, timeWindow).then(
        (result) => answer(null, result),
        (error: Error) => answer(error),
      );
    }

    /** A route's own buckets, as the in-memory store keeps them: per method and URL. */
    child(routeOptions: object): SharedRateLimitStore {
      const route = routeOf(routeOptions);
      return new SharedRateLimitStore(
        routeOptions,
        route ? `${route.method} ${route.url} ` : this.prefix,
      );
    }
  }
  return SharedRateLimitStore;
}

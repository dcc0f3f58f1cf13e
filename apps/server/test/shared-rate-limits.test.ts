// The shared write-limit store on its own, against a real database and a clock the test moves:
// counts per client and route, a fresh count each fixed window, and past windows swept away.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrateToLatest, openStore, type Store } from '../src/store';
import {
  rateLimitMigrations,
  sharedHitCounter,
  sharedRateLimitStore,
} from '../src/http/shared-rate-limits';

const MINUTE = 60_000;

describe('shared write-limit store', () => {
  let store: Store;
  const clock = { now: 100 * MINUTE + 5_000 };
  const sweepErrors: unknown[] = [];
  let Store: ReturnType<typeof sharedRateLimitStore>;

  beforeAll(async () => {
    store = await openStore({ file: ':memory:' });
    await migrateToLatest(store.db, rateLimitMigrations);
    const now = () => clock.now;
    const counter = sharedHitCounter(store.db, (e) => sweepErrors.push(e), now);
    Store = sharedRateLimitStore(counter);
  });
  afterAll(() => store.close());

  const hit = (s: InstanceType<typeof Store>, key: string) =>
    new Promise<{ current: number; ttl: number }>((resolve, reject) =>
      s.incr(key, (error, result) => (error ? reject(error) : resolve(result!)), MINUTE, 3),
    );
  const route = (method: string, url: string) =>
    new Store({}).child({ routeInfo: { method, url } } as never);

  it('counts a client per route, with the time left in the window', async () => {
    const errors = route('POST', '/api/client-errors');
    // another instance's store over the same database: the same count
    const elsewhere = route('POST', '/api/client-errors');
    expect(await hit(errors, '10.0.0.1')).toEqual({ current: 1, ttl: 55_000 });
    expect((await hit(elsewhere, '10.0.0.1')).current).toBe(2);
    expect((await hit(errors, '10.0.0.2')).current).toBe(1);
    expect((await hit(route('POST', '/api/users'), '10.0.0.1')).current).toBe(1);
    clock.now += 20_000;
    expect(await hit(errors, '10.0.0.1')).toEqual({ current: 3, ttl: 35_000 });
  });

  it('starts a fresh count each window and sweeps all but the last two windows', async () => {
    const errors = route('POST', '/api/client-errors');
    for (const minute of [101, 102, 103]) {
      clock.now = minute * MINUTE + 1;
      expect((await hit(errors, '10.0.0.1')).current).toBe(1);
    }
    // the sweep runs beside the request; it has run once the next query is answered
    await new Promise((resolve) => setTimeout(resolve, 20));
    const windows = await store.db
      .selectFrom('rate_limit_hits')
      .select('window_start')
      .distinct()
      .orderBy('window_start')
      .execute();
    expect(windows.map((w) => Number(w.window_start))).toEqual([102 * MINUTE, 103 * MINUTE]);
    expect(sweepErrors).toEqual([]);
  });
});

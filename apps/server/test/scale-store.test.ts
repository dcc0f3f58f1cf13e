// History pages, chart points by period, price closes and their migration from an older database:
// one suite, on SQLite always and on PostgreSQL when TEST_DATABASE_URL is set (as store.test.ts).
import { randomBytes } from 'node:crypto';
import { Migrator, sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import type { TimePeriod } from '@unit/protocol';
import {
  appendVaultHistory,
  coreMigrations,
  countPricePoints,
  insertPricePoints,
  insertVault,
  isPostgres,
  migrateToLatest,
  vaultHistoryPage,
  vaultPointsBetween,
  type HistoryCursor,
  type NewVaultHistory,
  type PricePoint,
  type Store,
  type VaultHistoryRow,
} from '../src/store';
import { devnetMigrations } from '../src/devnet/migrations';
import { aggregateBuckets, periodRange, TIME_PERIODS } from '../src/oracle/intervals';
import { PriceHistory } from '../src/oracle/price-history';
import { fileStore, pgUrl, postgresStore } from './dialect-stores';

const NOW = 1_767_225_600; // 2026-01-01T00:00:00Z
const PERIODS: TimePeriod[] = ['24h', '7d', '30d', '1y'];

async function addVault(store: Store): Promise<string> {
  const vaultId = randomBytes(32).toString('hex');
  await insertVault(store.db, {
    vault_id: vaultId,
    vault_tag: 'tag',
    vault_pubkey: randomBytes(32).toString('hex'),
    name: 'Vault',
    creation_account: 'tb1qowner',
    runes_account: 'tb1powner',
    btc_locked: 0,
    unit_borrowed: 0,
    vault_txid: 'aa'.repeat(32),
    vault_vout: 0,
    threshold_cents: 0,
    stamp: 0,
    status: 'active',
    created_at: 0,
  });
  return vaultId;
}

/** A record whose state encodes its index, so any mix-up shows. */
function record(vaultId: string, i: number, timestamp: number): NewVaultHistory {
  return {
    vault_id: vaultId,
    timestamp,
    action: i === 0 ? 'o' : 'd',
    btc_amt: 1000,
    unit_amt: 0,
    vault_amount: 1_000_000 + i,
    amount_borrowed: 500 + i,
    oracle_price: 9_500_000,
    transaction_id: i.toString(16).padStart(64, '0'),
    utxo: `${'bb'.repeat(32)}:0`,
    utxo_script: '51',
    liquidation_hash: null,
    liquidation_threshold: null,
    confirmed: 1,
  };
}

/** The reference answer, by reading everything: every record, newest first by (timestamp, id). */
async function everyRecord(store: Store, vaultId: string): Promise<VaultHistoryRow[]> {
  return store.db
    .selectFrom('vault_history')
    .selectAll()
    .where('vault_id', '=', vaultId)
    .orderBy('timestamp', 'desc')
    .orderBy('id', 'desc')
    .execute();
}

/** A fake year of prices: one point every `step` seconds ending at NOW, cents varying. */
function yearOfPoints(step: number): PricePoint[] {
  const points: PricePoint[] = [];
  for (let t = NOW - 366 * 86_400; t <= NOW; t += step) {
    points.push({ timestamp: t, priceCents: 9_000_000 + ((t / step) % 9973) * 37 });
  }
  return points;
}

/** The old answer, computed from every raw point: the reference the closes must reproduce. */
function referenceAnswer(period: TimePeriod, points: PricePoint[], current: number) {
  const { from, to } = periodRange(period, NOW);
  const inside = points.filter((p) => p.timestamp >= from && p.timestamp < to);
  const before = points.filter((p) => p.timestamp < from).at(-1) ?? null;
  return aggregateBuckets(period, NOW, inside, before, current);
}

function scaleSuite(open: () => Promise<{ store: Store; cleanup(): Promise<void> }>) {
  let store: Store;
  let cleanup: () => Promise<void>;
  const setUp = async (migrate = true) => {
    ({ store, cleanup } = await open());
    if (migrate) await migrateToLatest(store.db, devnetMigrations);
  };
  afterEach(async () => {
    await store.close();
    await cleanup();
  });

  it('pages history newest first with cursors that cover every record once', async () => {
    await setUp();
    const vaultId = await addVault(store);
    const other = await addVault(store);
    // Equal timestamps in runs of three: the id breaks the ties.
    for (let i = 0; i < 23; i++) {
      await appendVaultHistory(store.db, record(vaultId, i, 1_000 + Math.floor(i / 3)));
      await appendVaultHistory(store.db, record(other, i, 1_000 + i));
    }
    const all = await everyRecord(store, vaultId);
    const seen: VaultHistoryRow[] = [];
    let before: HistoryCursor | null = null;
    for (let pages = 0; pages < 10; pages++) {
      const page = await vaultHistoryPage(store.db, vaultId, 5, before);
      expect(page.records.length).toBeLessThanOrEqual(5);
      seen.push(...page.records);
      const older = all[seen.length];
      // The state before the page is the next older record's state after.
      expect(page.stateBefore).toEqual(
        older ? { vault_amount: older.vault_amount, amount_borrowed: older.amount_borrowed } : null,
      );
      if (!page.next) break;
      before = page.next;
    }
    expect(seen.map((r) => r.id)).toEqual(all.map((r) => r.id));
    expect(seen.every((r) => r.vault_id === vaultId)).toBe(true);
    // A page that ends exactly at the first record says so.
    const exact = await vaultHistoryPage(store.db, vaultId, 23, null);
    expect(exact.records).toHaveLength(23);
    expect(exact.next).toBeNull();
    expect(exact.stateBefore).toBeNull();
  });

  it('answers chart points per period: the state at each bucket edge, from bounded reads', async () => {
    await setUp();
    const vaultId = await addVault(store);
    // A record every 5 hours for 40 days, and one far before every period.
    const stamps = [NOW - 500 * 86_400];
    for (let t = NOW - 40 * 86_400; t < NOW; t += 5 * 3600) stamps.push(t);
    for (const [i, t] of stamps.entries())
      await appendVaultHistory(store.db, record(vaultId, i, t));
    const records = (await everyRecord(store, vaultId)).reverse();
    for (const period of PERIODS) {
      const { buckets, seconds } = TIME_PERIODS[period];
      const { from } = periodRange(period, NOW);
      const points = await vaultPointsBetween(store.db, vaultId, from, seconds, buckets);
      expect(points.length).toBeLessThanOrEqual(buckets + 1);
      // Reference: the last record before each edge, by a scan of every record.
      const expected = new Map<number, VaultHistoryRow>();
      for (let edge = from; edge <= from + buckets * seconds; edge += seconds) {
        const last = records.filter((r) => r.timestamp < edge).at(-1);
        if (last) expected.set(last.id, last);
      }
      expect(points).toEqual(
        [...expected.values()].map((r) => ({
          timestamp: r.timestamp,
          btc_locked: r.vault_amount,
          unit_borrowed: r.amount_borrowed,
          vaults: 1,
        })),
      );
    }
    // 24h holds about five records, the year all of them (each is the last of its day or so).
    const day = await vaultPointsBetween(store.db, vaultId, periodRange('24h', NOW).from, 300, 288);
    expect(day.length).toBeGreaterThan(3);
    expect(day.length).toBeLessThan(8);
  });

  it('keeps each bucket close as points arrive, and answers as the raw points would', async () => {
    await setUp();
    const points = yearOfPoints(3600);
    // Out of order and in pieces, as back-fill, gap fill and ticks write them.
    await insertPricePoints(store.db, points.slice(5000));
    await insertPricePoints(store.db, points.slice(0, 5000));
    const prices = new PriceHistory(store.db);
    const current = points.at(-1)!;
    for (const period of PERIODS) {
      const answer = await prices.answer(period, NOW, current);
      expect(answer.data).toEqual(referenceAnswer(period, points, current.priceCents));
      expect(answer.data).toHaveLength(TIME_PERIODS[period].buckets);
    }
    // Thinning drops raw points older than a day and keeps every answer.
    const before = await Promise.all(PERIODS.map((p) => prices.answer(p, NOW, current)));
    await prices.thin(NOW);
    expect(await countPricePoints(store.db)).toBe(25);
    expect(await Promise.all(PERIODS.map((p) => prices.answer(p, NOW, current)))).toEqual(before);
  });

  it('caches a period until the price moves', async () => {
    await setUp();
    await insertPricePoints(store.db, yearOfPoints(86_400));
    const prices = new PriceHistory(store.db);
    const current = { timestamp: NOW, priceCents: 9_100_000 };
    const first = await prices.json('1y', NOW, current);
    await store.db.deleteFrom('price_closes').execute();
    expect(await prices.json('1y', NOW + 1, current)).toBe(first);
    const moved = { timestamp: NOW + 30, priceCents: 9_200_000 };
    expect(await prices.json('1y', NOW + 30, moved)).not.toBe(first);
  });

  it('upgrades a database of the old schema: closes and indexes are built from its rows', async () => {
    await setUp(false);
    // The schema as it was before the 0300 migrations.
    const schema = isPostgres(store.db)
      ? (await sql<{ s: string }>`select current_schema() as s`.execute(store.db)).rows[0]?.s
      : undefined;
    const old = new Migrator({
      db: store.db,
      provider: { getMigrations: async () => ({ '0001_core': coreMigrations['0001_core']! }) },
      ...(schema ? { migrationTableSchema: schema } : {}),
    });
    expect((await old.migrateToLatest()).error).toBeUndefined();
    const points = yearOfPoints(1800);
    for (let i = 0; i < points.length; i += 1000) {
      await store.db
        .insertInto('price_points')
        .values(
          points
            .slice(i, i + 1000)
            .map((p) => ({ timestamp: p.timestamp, price_cents: p.priceCents })),
        )
        .execute();
    }
    const vaultId = await addVault(store);
    for (let i = 0; i < 12; i++) await appendVaultHistory(store.db, record(vaultId, i, 5_000 + i));

    const ran = await migrateToLatest(store.db, devnetMigrations);
    expect(ran).toEqual(expect.arrayContaining(['0300_history_keyset', '0300_price_closes']));

    const current = points.at(-1)!;
    const prices = new PriceHistory(store.db);
    for (const period of PERIODS) {
      expect((await prices.answer(period, NOW, current)).data).toEqual(
        referenceAnswer(period, points, current.priceCents),
      );
    }
    expect(await countPricePoints(store.db)).toBe(points.length);
    const page = await vaultHistoryPage(store.db, vaultId, 10, null);
    expect(page.records.map((r) => r.vault_amount)).toEqual(
      Array.from({ length: 10 }, (_, i) => 1_000_011 - i),
    );
    expect(page.stateBefore).toEqual({ vault_amount: 1_000_001, amount_borrowed: 501 });
  });
}

describe('history pages and price closes on SQLite (temp file)', () => {
  scaleSuite(() => fileStore('scale'));
});

describe.runIf(pgUrl)(
  'history pages and price closes on PostgreSQL (needs TEST_DATABASE_URL)',
  () => {
    scaleSuite(() => postgresStore('scale_test'));
  },
);

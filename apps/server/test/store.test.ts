// One storage suite, run on SQLite always and on PostgreSQL when TEST_DATABASE_URL is set (the
// test script starts a throwaway cluster). Each PostgreSQL run gets a fresh schema.
import { randomBytes } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  activeReservations,
  advanceGuardianRequest,
  appendVaultHistory,
  consumeReservation,
  dueOutbox,
  enqueueOutbox,
  getGuardianRequest,
  getOrCreateSetting,
  getVault,
  getVaultByPubkey,
  setVaultStatus,
  insertPricePoints,
  insertReservation,
  insertVault,
  latestPricePoint,
  liquidatableVaults,
  listLiquidations,
  markOutboxFailed,
  migrateToLatest,
  pricePointsBetween,
  recordGuardianRequest,
  recordLiquidation,
  recordRepossession,
  releaseExpiredReservations,
  subscribeTelegram,
  subscribedChats,
  updateVaultState,
  vaultHistory,
  type NewVault,
  type Store,
} from '../src/store';
import { devnetMigrations } from '../src/devnet/migrations';
import { coreMigrations, isPostgres } from '../src/store/migrations';
import { liquidationMigrations } from '../src/store/liquidation-migrations';
import { scaleMigrations } from '../src/store/scale-migrations';
import { oracleHashesKey, putSetting } from '../src/store/settings';
import { Migrator, sql } from 'kysely';
import { sha256 } from '@noble/hashes/sha2.js';
import { signPrice } from '@unit/guardian-net/price';
import { getPriceQuorum, priceQuorumHex, recordPriceQuorum } from '../src/store/price-quorums';
import { guardianMigrations } from '../src/cosign/migrations';
import { fileStore, pgUrl, postgresStore } from './dialect-stores';
import { historyEntry } from './rows';

function vault(overrides: Partial<NewVault> = {}): NewVault {
  return {
    vault_id: randomBytes(32).toString('hex'),
    vault_tag: 'tag',
    vault_pubkey: randomBytes(32).toString('hex'),
    name: 'My vault',
    creation_account: 'tb1qexampleaddress0000000000000000000000',
    runes_account: 'tb1pexampleaddress0000000000000000000000',
    btc_locked: 100_000_000,
    unit_borrowed: 5_000_000,
    vault_txid: randomBytes(32).toString('hex'),
    vault_vout: 0,
    threshold_cents: 6_750_000,
    stamp: 1_700_000_000,
    status: 'active',
    created_at: 1_700_000_000,
    ...overrides,
  };
}

function storageSuite(open: () => Promise<{ store: Store; cleanup(): Promise<void> }>) {
  let store: Store;
  let cleanup: () => Promise<void>;

  beforeEach(async () => {
    ({ store, cleanup } = await open());
    await migrateToLatest(store.db, devnetMigrations);
  });
  afterEach(async () => {
    await store.close();
    await cleanup();
  });

  it('migrates once: a second run has nothing left to do', async () => {
    expect(await migrateToLatest(store.db, devnetMigrations)).toEqual([]);
  });

  it('keeps a generated setting across calls', async () => {
    const first = await getOrCreateSetting(store.db, 'install_note', () => 'aa');
    const second = await getOrCreateSetting(store.db, 'install_note', () => 'bb');
    expect([first, second]).toEqual(['aa', 'aa']);
  });

  it('stores price points and ignores a duplicate timestamp', async () => {
    await insertPricePoints(store.db, [
      { timestamp: 100, priceCents: 9_500_000 },
      { timestamp: 200, priceCents: 9_600_000 },
    ]);
    await insertPricePoints(store.db, [{ timestamp: 200, priceCents: 1 }]);
    expect(await latestPricePoint(store.db)).toEqual({ timestamp: 200, priceCents: 9_600_000 });
    expect(await pricePointsBetween(store.db, 0, 200)).toEqual([
      { timestamp: 100, priceCents: 9_500_000 },
    ]);
  });

  it('round-trips money above 2^32 exactly as integers', async () => {
    const big = vault({ btc_locked: 2_100_000_000_000_000, unit_borrowed: 123_456_789_012 });
    await insertVault(store.db, big);
    const row = await getVaultByPubkey(store.db, big.vault_pubkey);
    expect(row?.btc_locked).toBe(2_100_000_000_000_000);
    expect(row?.unit_borrowed).toBe(123_456_789_012);
    expect(typeof row?.btc_locked).toBe('number');
  });

  it('keeps one live vault per pubkey, and a new one once the last is repossessed', async () => {
    const first = vault();
    await insertVault(store.db, first);
    await expect(
      insertVault(store.db, vault({ vault_pubkey: first.vault_pubkey })),
    ).rejects.toThrow();
    // A liquidation not yet claimed still holds the key.
    await setVaultStatus(store.db, first.vault_id, 'liquidated');
    await expect(
      insertVault(store.db, vault({ vault_pubkey: first.vault_pubkey })),
    ).rejects.toThrow();
    await setVaultStatus(store.db, first.vault_id, 'repossessed');
    const next = vault({
      vault_pubkey: first.vault_pubkey,
      created_at: Number(first.created_at) + 60,
    });
    await insertVault(store.db, next);
    expect((await getVaultByPubkey(store.db, first.vault_pubkey))?.vault_id).toBe(next.vault_id);
    expect((await getVault(store.db, first.vault_id))?.status).toBe('repossessed');
    await expect(
      insertVault(store.db, vault({ vault_pubkey: first.vault_pubkey })),
    ).rejects.toThrow();
  });

  it('0500 keeps the vaults stored before it and narrows uniqueness to live vaults', async () => {
    const fresh = await open();
    try {
      const db = fresh.store.db;
      const before = Object.fromEntries(
        Object.entries({
          ...{ ...coreMigrations, ...scaleMigrations, ...liquidationMigrations },
          ...devnetMigrations,
        }).filter(([name]) => name !== '0500_one_live_vault_per_key'),
      );
      const schema = isPostgres(db)
        ? (await sql<{ schema: string }>`select current_schema() as schema`.execute(db)).rows[0]
            ?.schema
        : undefined;
      const { error } = await new Migrator({
        db,
        provider: { getMigrations: () => Promise.resolve(before) },
        allowUnorderedMigrations: true,
        ...(schema ? { migrationTableSchema: schema } : {}),
      }).migrateToLatest();
      expect(error).toBeUndefined();
      const old = vault({ status: 'repossessed' });
      const other = vault();
      await insertVault(db, old);
      await insertVault(db, other);
      // Before: one vault per key, whatever its status.
      await expect(insertVault(db, vault({ vault_pubkey: old.vault_pubkey }))).rejects.toThrow();

      expect(await migrateToLatest(db, devnetMigrations)).toEqual(['0500_one_live_vault_per_key']);
      expect(await getVault(db, old.vault_id)).toMatchObject({
        ...old,
        updated_at: old.created_at,
      });
      expect(await getVaultByPubkey(db, other.vault_pubkey)).toMatchObject(other);
      const next = vault({
        vault_pubkey: old.vault_pubkey,
        created_at: Number(old.created_at) + 60,
      });
      await insertVault(db, next);
      expect((await getVaultByPubkey(db, old.vault_pubkey))?.vault_id).toBe(next.vault_id);
      await expect(insertVault(db, vault({ vault_pubkey: other.vault_pubkey }))).rejects.toThrow();
    } finally {
      await fresh.store.close();
      await fresh.cleanup();
    }
  });

  it('finds exactly the vaults whose threshold is at or above the price', async () => {
    const at = vault({ threshold_cents: 6_000_000 });
    const above = vault({ threshold_cents: 7_000_000 });
    const below = vault({ threshold_cents: 5_999_999 });
    const debtFree = vault({ threshold_cents: 0, unit_borrowed: 0 });
    for (const v of [at, above, below, debtFree]) await insertVault(store.db, v);
    const hits = await liquidatableVaults(store.db, 6_000_000);
    expect(hits.map((v) => v.vault_id).sort()).toEqual([at.vault_id, above.vault_id].sort());
  });

  it('records vault history newest first and updates the vault state', async () => {
    const v = vault();
    await insertVault(store.db, v);
    // What every entry below shares: 1 BTC in the vault, no debt, unconfirmed, at the opening's output.
    const base = historyEntry({
      ...{
        vault_id: v.vault_id,
        transaction_id: v.vault_txid,
        utxo_script: '5120' + '00'.repeat(32),
      },
      ...{ btc_amt: 100_000_000, unit_amt: 0, vault_amount: 100_000_000, amount_borrowed: 0 },
      confirmed: 0,
    });
    await appendVaultHistory(store.db, {
      ...base,
      timestamp: 10,
      action: 'o',
      transaction_id: 'a'.repeat(64),
    });
    await appendVaultHistory(store.db, {
      ...base,
      timestamp: 20,
      action: 'b',
      unit_amt: 500_000,
      amount_borrowed: 500_000,
      transaction_id: 'b'.repeat(64),
    });
    await updateVaultState(store.db, v.vault_id, {
      btc_locked: 100_000_000,
      unit_borrowed: 500_000,
      vault_txid: 'b'.repeat(64),
      vault_vout: 0,
      threshold_cents: 675_000,
      stamp: 20,
    });
    const history = await vaultHistory(store.db, v.vault_id);
    expect(history.map((h) => h.action)).toEqual(['b', 'o']);
    expect((await getVaultByPubkey(store.db, v.vault_pubkey))?.unit_borrowed).toBe(500_000);
  });

  it('refuses a replayed guardian request nonce and tracks its state', async () => {
    const request = {
      nonce: 'ab'.repeat(16),
      method: 'vault.deposit',
      vault_id: null,
      vault_pubkey: 'cd'.repeat(32),
      expires_at: 2_000_000_000,
    };
    expect(await recordGuardianRequest(store.db, request)).toBe(true);
    expect(await recordGuardianRequest(store.db, request)).toBe(false);
    await advanceGuardianRequest(store.db, request.nonce, 'broadcast', { txid: 'ee'.repeat(32) });
    const row = await getGuardianRequest(store.db, request.nonce);
    expect(row?.state).toBe('broadcast');
    expect(row?.txid).toBe('ee'.repeat(32));
  });

  it('uses a reservation once and releases expired ones', async () => {
    const common = {
      vault_pubkey: 'cd'.repeat(32),
      vault_action: 'borrow' as const,
      unit_amount: 10_000,
      treasury_txid: 'ff'.repeat(32),
      treasury_vout: 1,
      created_at: 100,
    };
    await insertReservation(store.db, { ...common, reservation_id: 'live', expires_at: 1_000 });
    await insertReservation(store.db, { ...common, reservation_id: 'old', expires_at: 150 });
    expect((await activeReservations(store.db, 200)).map((r) => r.reservation_id)).toEqual([
      'live',
    ]);
    expect(await releaseExpiredReservations(store.db, 200)).toBe(1);
    expect(await consumeReservation(store.db, 'live')).toBe(true);
    expect(await consumeReservation(store.db, 'live')).toBe(false);
  });

  it('records a liquidation once, then its repossession once', async () => {
    // Layout 2: the list carries the term the output commits to, which a repossessor rebuilds.
    const v = vault({ settle_height: 900_040, exit_height: 900_060 });
    await insertVault(store.db, v);
    const liquidation = {
      vault_id: v.vault_id,
      liquidated_at: 500,
      liquidation_hash: '11'.repeat(20),
      threshold_cents: 6_750_000,
      price_cents: 6_700_000,
      btc_locked: 100_000_000,
      unit_borrowed: 5_000_000,
    };
    expect(await recordLiquidation(store.db, liquidation)).toBe(true);
    expect(await recordLiquidation(store.db, liquidation)).toBe(false);
    expect((await getVaultByPubkey(store.db, v.vault_pubkey))?.status).toBe('liquidated');
    expect(await listLiquidations(store.db)).toEqual([
      {
        vault_id: v.vault_id,
        name: 'My vault',
        vault_pubkey: v.vault_pubkey,
        vault_txid: v.vault_txid,
        vault_vout: v.vault_vout,
        stamp: v.stamp,
        btc_locked: 100_000_000,
        unit_borrowed: 5_000_000,
        threshold_cents: 6_750_000,
        liquidated_at: 500,
        liquidation_hash: '11'.repeat(20),
        status: 'liquidated',
        oracles: 1,
        settle_height: 900_040,
        exit_height: 900_060,
      },
    ]);
    // With the guardian network its (threshold, stamp) row holds the oracles' hashes: three leaves.
    const hashes = ['aa', 'bb', 'cc'].map((b) => b.repeat(20));
    await putSetting(store.db, oracleHashesKey(6_750_000, v.stamp), JSON.stringify({ hashes }));
    expect((await listLiquidations(store.db))[0]!.oracles).toBe(3);
    expect(await recordRepossession(store.db, v.vault_id, 'claimer', '22'.repeat(32))).toBe(true);
    expect(await recordRepossession(store.db, v.vault_id, 'other', '33'.repeat(32))).toBe(false);
  });

  it('retries an outbox message until its tries are spent', async () => {
    await subscribeTelegram(store.db, { address: 'tb1qaddr', chat_id: '42', network: 'devnet' });
    expect(await subscribedChats(store.db, 'tb1qaddr', 'devnet')).toEqual(['42']);
    await enqueueOutbox(
      store.db,
      [{ chat_id: '42', text: 'hi', max_attempts: 2, retry_delay_ms: 5000 }],
      0,
    );
    const [first] = await dueOutbox(store.db, 0);
    expect(await markOutboxFailed(store.db, first!, 'down', 0)).toBe('retry');
    expect(await dueOutbox(store.db, 4_999)).toEqual([]);
    const [second] = await dueOutbox(store.db, 5_000);
    expect(await markOutboxFailed(store.db, second!, 'down', 5_000)).toBe('failed');
    expect(await dueOutbox(store.db, 1_000_000)).toEqual([]);
  });

  it("keeps a quote's price quorum once under its commitment, as the exact text it hashes", async () => {
    await migrateToLatest(store.db, { ...devnetMigrations, ...guardianMigrations });
    const key = (id: number) => new Uint8Array(32).fill(id);
    const price = (id: number, cents: number) =>
      signPrice(key(id), {
        guardian: id,
        setVersion: 1,
        priceCents: cents,
        time: 1_700_000_000 + id,
      });
    const prices = [price(3, 9_510_000), price(1, 9_500_000)];
    const commitment = await recordPriceQuorum(store.db, prices, 100);
    expect(commitment).toBe(priceQuorumHex(prices));
    // A second request quoting the same quorum keeps the first row.
    expect(await recordPriceQuorum(store.db, [...prices].reverse(), 200)).toBe(commitment);
    const kept = await getPriceQuorum(store.db, commitment.toUpperCase());
    expect(kept).toEqual({ commitment, prices: [prices[1], prices[0]], createdAt: 100 });
    // The stored text is what the commitment hashes: taggedHash("unit/price-quorum", text).
    const row = await store.db.selectFrom('price_quorums').selectAll().executeTakeFirstOrThrow();
    const tag = sha256(new TextEncoder().encode('unit/price-quorum'));
    const body = new TextEncoder().encode(row.prices_json);
    const digest = sha256(new Uint8Array([...tag, ...tag, ...body]));
    expect(Buffer.from(digest).toString('hex')).toBe(commitment);
    expect(await getPriceQuorum(store.db, 'ab'.repeat(32))).toBeNull();
    // Bounded: no empty quorum, none over the quote's 64 prices.
    await expect(recordPriceQuorum(store.db, [], 100)).rejects.toThrow();
    const many = Array.from({ length: 65 }, (_, i) => price(i + 1, 9_500_000));
    await expect(recordPriceQuorum(store.db, many, 100)).rejects.toThrow();
  });
}

describe('storage on SQLite (temp file)', () => {
  storageSuite(() => fileStore('store'));
});

describe.runIf(pgUrl)('storage on PostgreSQL (needs TEST_DATABASE_URL)', () => {
  storageSuite(() => postgresStore('store_test'));
});

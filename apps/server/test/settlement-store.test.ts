// The vaults due for settlement at the term, on SQLite always and on PostgreSQL when
// TEST_DATABASE_URL is set: only active vaults of layout 2 whose term the tip reached, oldest term
// first, bounded; the (status, settle_height) index the query reads; and a settled vault's key may
// open a new vault, as a repossessed one's may.
import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import {
  insertVault,
  migrateToLatest,
  openStore,
  SETTLEMENT_BATCH,
  vaultsDueForSettlement,
  type Store,
} from '../src/store';
import { guardianMigrations } from '../src/cosign/migrations';

const pgUrl = process.env.TEST_DATABASE_URL;

function row(
  n: number,
  over: {
    status?: 'active' | 'liquidated' | 'settled';
    settle?: number | null;
    pubkey?: string;
  } = {},
) {
  const id = n.toString(16).padStart(64, '0');
  const settle = over.settle === undefined ? 100 + n : over.settle;
  return {
    ...{ vault_id: id, vault_tag: id.slice(0, 8), vault_pubkey: over.pubkey ?? id, name: 'v' },
    ...{ creation_account: 'tb1q', runes_account: 'tb1q', btc_locked: 1_000, unit_borrowed: 0 },
    ...{ vault_txid: id, vault_vout: 0, threshold_cents: 0, stamp: 1, created_at: 1 },
    settle_height: settle,
    exit_height: settle === null ? null : settle + 20,
    status: over.status ?? 'active',
  };
}

/** A store on the dialect, and how to drop what it made. */
type Opened = { store: Store; cleanup: () => Promise<void> };
const sqlite = async (): Promise<Opened> => ({
  store: await openStore({ file: ':memory:' }),
  cleanup: () => Promise.resolve(),
});
const postgres = async (): Promise<Opened> => {
  const schema = `settle_${process.pid}_${randomBytes(4).toString('hex')}`;
  return {
    store: await openStore({ databaseUrl: pgUrl!, schema }),
    cleanup: async () => {
      const admin = await openStore({ databaseUrl: pgUrl! });
      await admin.db.schema.dropSchema(schema).ifExists().cascade().execute();
      await admin.close();
    },
  };
};
const dialects = [
  ['SQLite', sqlite],
  ...(pgUrl ? [['PostgreSQL', postgres] as const] : []),
] as const;

describe.each(dialects)('vaults due for settlement on %s', (dialect, open) => {
  let opened: Opened | null = null;
  afterEach(async () => {
    await opened?.store.close();
    await opened?.cleanup();
    opened = null;
  });

  async function openedStore(): Promise<Store> {
    opened = await open();
    await migrateToLatest(opened.store.db, guardianMigrations);
    return opened.store;
  }

  it('reads active termed vaults at or past their term, oldest term first, bounded', async () => {
    const { db } = await openedStore();
    await insertVault(db, row(5)); // term 105
    await insertVault(db, row(2)); // term 102
    await insertVault(db, row(3, { status: 'liquidated' }));
    await insertVault(db, row(4, { status: 'settled' }));
    await insertVault(db, row(6, { settle: null })); // layout 1: no term
    await insertVault(db, row(9)); // term 109: not yet
    const due = await vaultsDueForSettlement(db, 105);
    expect(due.map((v) => v.vault_id)).toEqual([row(2).vault_id, row(5).vault_id]);
    expect(await vaultsDueForSettlement(db, 101)).toEqual([]);
    for (let n = 10; n < 10 + SETTLEMENT_BATCH + 5; n++) await insertVault(db, row(n));
    expect(await vaultsDueForSettlement(db, 10_000, 1_000)).toHaveLength(SETTLEMENT_BATCH);
  });

  it('has the (status, settle_height) index and lets a settled key open again', async () => {
    const { db } = await openedStore();
    const names =
      dialect === 'SQLite'
        ? (
            await sql<{
              name: string;
            }>`select name from sqlite_master where type = 'index' and tbl_name = 'vaults'`.execute(
              db,
            )
          ).rows.map((r) => r.name)
        : (
            await sql<{
              name: string;
            }>`select indexname as name from pg_indexes where tablename = 'vaults' and schemaname = current_schema()`.execute(
              db,
            )
          ).rows.map((r) => r.name);
    expect(names).toContain('vaults_status_settle_height');
    const key = 'ab'.repeat(32);
    await insertVault(db, row(20, { pubkey: key, status: 'settled' }));
    await insertVault(db, row(21, { pubkey: key }));
    await expect(insertVault(db, row(22, { pubkey: key }))).rejects.toThrow();
  });
});

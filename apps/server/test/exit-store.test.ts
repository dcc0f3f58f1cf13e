// The vaults whose owner may have left by the exit, on SQLite always and on PostgreSQL when
// TEST_DATABASE_URL is set: only active vaults of layout 2 whose exit height the tip reached, in
// vault id order from where the last pass stopped, bounded; the (status, exit_height) index the
// query reads; and an exited vault's key may open a new vault, as a settled one's may.
import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import {
  EXIT_CHECK_BATCH,
  insertVault,
  migrateToLatest,
  openStore,
  vaultsPastExit,
  type Store,
} from '../src/store';
import { guardianMigrations } from '../src/cosign/migrations';

const pgUrl = process.env.TEST_DATABASE_URL;

function row(
  n: number,
  over: { status?: 'active' | 'settled' | 'exited'; exit?: number | null; pubkey?: string } = {},
) {
  const id = n.toString(16).padStart(64, '0');
  const exit = over.exit === undefined ? 120 + n : over.exit;
  return {
    ...{ vault_id: id, vault_tag: id.slice(0, 8), vault_pubkey: over.pubkey ?? id, name: 'v' },
    ...{ creation_account: 'tb1q', runes_account: 'tb1q', btc_locked: 1_000, unit_borrowed: 0 },
    ...{ vault_txid: id, vault_vout: 0, threshold_cents: 0, stamp: 1, created_at: 1 },
    settle_height: exit === null ? null : exit - 20,
    exit_height: exit,
    status: over.status ?? 'active',
  };
}

type Opened = { store: Store; cleanup: () => Promise<void> };
const sqlite = async (): Promise<Opened> => ({
  store: await openStore({ file: ':memory:' }),
  cleanup: () => Promise.resolve(),
});
const postgres = async (): Promise<Opened> => {
  const schema = `exit_${process.pid}_${randomBytes(4).toString('hex')}`;
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

describe.each(dialects)('vaults past their exit height on %s', (dialect, open) => {
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

  it('reads active termed vaults at or past their exit, in id order from a cursor, bounded', async () => {
    const { db } = await openedStore();
    await insertVault(db, row(5)); // exit 125
    await insertVault(db, row(2)); // exit 122
    await insertVault(db, row(3, { status: 'settled' }));
    await insertVault(db, row(4, { status: 'exited' }));
    await insertVault(db, row(6, { exit: null })); // layout 1: no exit leaf
    await insertVault(db, row(9)); // exit 129: not yet
    const past = await vaultsPastExit(db, 125);
    expect(past.map((v) => v.vault_id)).toEqual([row(2).vault_id, row(5).vault_id]);
    expect((await vaultsPastExit(db, 125, row(2).vault_id)).map((v) => v.vault_id)).toEqual([
      row(5).vault_id,
    ]);
    expect(await vaultsPastExit(db, 121)).toEqual([]);
    for (let n = 10; n < 10 + EXIT_CHECK_BATCH + 5; n++) await insertVault(db, row(n));
    expect(await vaultsPastExit(db, 10_000, '', 1_000)).toHaveLength(EXIT_CHECK_BATCH);
  });

  it('has the (status, exit_height) index and lets an exited key open again', async () => {
    const { db } = await openedStore();
    const names = (
      dialect === 'SQLite'
        ? await sql<{
            name: string;
          }>`select name from sqlite_master where type = 'index' and tbl_name = 'vaults'`.execute(
            db,
          )
        : await sql<{
            name: string;
          }>`select indexname as name from pg_indexes where tablename = 'vaults' and schemaname = current_schema()`.execute(
            db,
          )
    ).rows.map((r) => r.name);
    expect(names).toEqual(
      expect.arrayContaining(['vaults_status_exit_height', 'vaults_open_pubkey']),
    );
    const key = 'cd'.repeat(32);
    await insertVault(db, row(30, { pubkey: key, status: 'exited' }));
    await insertVault(db, row(31, { pubkey: key, status: 'settled' }));
    await insertVault(db, row(32, { pubkey: key }));
    // Still one live vault per key.
    await expect(insertVault(db, row(33, { pubkey: key }))).rejects.toThrow();
  });
});

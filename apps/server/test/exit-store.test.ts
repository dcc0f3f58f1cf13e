// The vaults whose owner may have left by the exit, on SQLite always and on PostgreSQL when
// TEST_DATABASE_URL is set: only active vaults of layout 2 whose exit height the tip reached, in
// vault id order from where the last pass stopped, bounded; the (status, exit_height) index the
// query reads; and an exited vault's key may open a new vault, as a settled one's may.
import { describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { EXIT_CHECK_BATCH, insertVault, vaultsPastExit } from '../src/store';
import { guardianMigrations } from '../src/cosign/migrations';
import { storeDialects, storePerTest, termedVaultRow } from './dialect-stores';

/** Vault `n`, its exit at 120 + n unless given (null: layout 1, no exit leaf). */
function row(
  n: number,
  over: { status?: 'active' | 'settled' | 'exited'; exit?: number | null; pubkey?: string } = {},
) {
  const exit = over.exit === undefined ? 120 + n : over.exit;
  return termedVaultRow(n, { ...over, settle: exit === null ? null : exit - 20 });
}

describe.each(storeDialects('exit'))('vaults past their exit height on %s', (dialect, open) => {
  const openedStore = storePerTest(open, guardianMigrations);

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

// The vaults due for settlement at the term, on SQLite always and on PostgreSQL when
// TEST_DATABASE_URL is set: only active vaults of layout 2 whose term the tip reached, oldest term
// first, bounded; the (status, settle_height) index the query reads; and a settled vault's key may
// open a new vault, as a repossessed one's may.
import { describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { insertVault, SETTLEMENT_BATCH, vaultsDueForSettlement } from '../src/store';
import { guardianMigrations } from '../src/cosign/migrations';
import { storeDialects, storePerTest, termedVaultRow } from './dialect-stores';

const row = termedVaultRow;

describe.each(storeDialects('settle'))('vaults due for settlement on %s', (dialect, open) => {
  const openedStore = storePerTest(open, guardianMigrations);

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

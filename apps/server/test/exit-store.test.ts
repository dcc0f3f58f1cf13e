// The vaults whose owner may have left by the exit, on SQLite always and on PostgreSQL when
// TEST_DATABASE_URL is set: only vaults of layout 2 whose output is still theirs (active, or
// liquidated with no claimant yet) and whose exit height the tip reached, in vault id order from
// where the last pass stopped, bounded; the (status, exit_height) index the query reads; an exited
// vault's key may open a new vault, as a settled one's may; closing a vault by its exit, a
// liquidated one's liquidation with it (ended `exited`, no longer claimable), once; and the
// liquidation states the database accepts.
import { describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import {
  closeVaultByExit,
  EXIT_CHECK_BATCH,
  getLiquidation,
  getVault,
  insertVault,
  listLiquidations,
  recordLiquidation,
  recordRepossession,
  vaultHistory,
  vaultsPastExit,
} from '../src/store';
import { guardianMigrations } from '../src/cosign/migrations';
import { storeDialects, storePerTest, termedVaultRow } from './dialect-stores';

/** Vault `n`, its exit at 120 + n unless given (null: layout 1, no exit leaf). */
function row(
  n: number,
  over: {
    status?: 'active' | 'liquidated' | 'repossessed' | 'settled' | 'exited';
    exit?: number | null;
    pubkey?: string;
  } = {},
) {
  const exit = over.exit === undefined ? 120 + n : over.exit;
  return termedVaultRow(n, { ...over, settle: exit === null ? null : exit - 20 });
}

describe.each(storeDialects('exit'))('vaults past their exit height on %s', (dialect, open) => {
  const openedStore = storePerTest(open, guardianMigrations);

  it('reads active and unclaimed liquidated vaults at or past their exit, in id order from a cursor, bounded', async () => {
    const { db } = await openedStore();
    await insertVault(db, row(5)); // exit 125
    await insertVault(db, row(2)); // exit 122
    await insertVault(db, row(3, { status: 'settled' }));
    await insertVault(db, row(4, { status: 'exited' }));
    await insertVault(db, row(6, { exit: null })); // layout 1: no exit leaf
    await insertVault(db, row(9)); // exit 129: not yet
    await insertVault(db, row(1, { status: 'liquidated' })); // exit 121: no claimant yet
    await insertVault(db, row(7, { status: 'repossessed' })); // a claimant took its output
    const past = await vaultsPastExit(db, 125);
    expect(past.map((v) => v.vault_id)).toEqual([
      row(1).vault_id,
      row(2).vault_id,
      row(5).vault_id,
    ]);
    expect((await vaultsPastExit(db, 125, row(2).vault_id)).map((v) => v.vault_id)).toEqual([
      row(5).vault_id,
    ]);
    expect(await vaultsPastExit(db, 120)).toEqual([]);
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

  const EXIT_TXID = 'ee'.repeat(32);
  const PAYOUT = `5120${'0f'.repeat(32)}`;
  const liquidationOf = (n: number) => ({
    ...{ vault_id: row(n).vault_id, liquidated_at: 50, liquidation_hash: 'aa'.repeat(20) },
    ...{ threshold_cents: 7_965_000, price_cents: 7_900_000 },
    ...{ btc_locked: 1_000, unit_borrowed: 59_000 },
  });

  it('closes a liquidated vault by its exit once: its liquidation ends exited, unclaimable', async () => {
    const { db } = await openedStore();
    await insertVault(db, { ...row(40), unit_borrowed: 59_000 });
    expect(await recordLiquidation(db, liquidationOf(40))).toBe(true);
    const vault = (await getVault(db, row(40).vault_id))!;
    expect(vault.status).toBe('liquidated');
    const exit = { txid: EXIT_TXID, payoutScript: PAYOUT, timestamp: 900 };
    // A row that no longer names the output the exit spent is left alone.
    expect(await closeVaultByExit(db, { ...vault, vault_txid: 'ff'.repeat(32) }, exit)).toBe(false);
    expect(await closeVaultByExit(db, vault, exit)).toBe(true);
    expect(await getVault(db, vault.vault_id)).toMatchObject({
      ...{ status: 'exited', btc_locked: 0, unit_borrowed: 0, updated_at: 900 },
    });
    expect(await getLiquidation(db, vault.vault_id)).toMatchObject({
      ...{ status: 'exited', claimed_by: null, claim_txid: EXIT_TXID },
    });
    const [e] = await vaultHistory(db, vault.vault_id);
    expect(e).toMatchObject({
      ...{ action: 'e', timestamp: 900, btc_amt: 1_000, unit_amt: 59_000, vault_amount: 0 },
      ...{ amount_borrowed: 0, oracle_price: 0, transaction_id: EXIT_TXID },
      ...{ utxo: `${EXIT_TXID}:0`, utxo_script: PAYOUT },
    });
    expect(Boolean(e?.confirmed)).toBe(true);
    // Once: a second pass, and a claimant who comes after, find nothing to take.
    expect(await closeVaultByExit(db, vault, exit)).toBe(false);
    expect(await recordRepossession(db, vault.vault_id, row(41).vault_id, 'dd'.repeat(32))).toBe(
      false,
    );
    expect(await vaultHistory(db, vault.vault_id)).toHaveLength(1);
    expect((await listLiquidations(db)).map((l) => [l.vault_id, l.status])).toEqual([
      [vault.vault_id, 'exited'],
    ]);
    expect(await vaultsPastExit(db, 10_000)).toEqual([]);
  });

  it('leaves a repossessed vault to its claimant, and an active one closes alone', async () => {
    const { db } = await openedStore();
    await insertVault(db, row(42));
    await insertVault(db, row(43));
    await recordLiquidation(db, liquidationOf(42));
    await recordRepossession(db, row(42).vault_id, row(43).vault_id, 'dd'.repeat(32));
    const exit = { txid: EXIT_TXID, payoutScript: PAYOUT, timestamp: 900 };
    expect(await closeVaultByExit(db, (await getVault(db, row(42).vault_id))!, exit)).toBe(false);
    expect(await getLiquidation(db, row(42).vault_id)).toMatchObject({ status: 'repossessed' });
    expect(await closeVaultByExit(db, (await getVault(db, row(43).vault_id))!, exit)).toBe(true);
    expect((await getVault(db, row(43).vault_id))?.status).toBe('exited');
    expect(await getLiquidation(db, row(43).vault_id)).toBeNull();
  });

  it('takes a liquidation in one of its three states only', async () => {
    const { db } = await openedStore();
    await insertVault(db, row(44));
    await expect(
      db
        .insertInto('liquidations')
        .values({ ...liquidationOf(44), status: 'gone' as 'exited' })
        .execute(),
    ).rejects.toThrow();
    await recordLiquidation(db, liquidationOf(44));
    await expect(
      db
        .updateTable('liquidations')
        .set({ status: 'claimed' as 'exited' })
        .where('vault_id', '=', row(44).vault_id)
        .execute(),
    ).rejects.toThrow();
    for (const status of ['repossessed', 'exited', 'liquidated'] as const)
      await db
        .updateTable('liquidations')
        .set({ status })
        .where('vault_id', '=', row(44).vault_id)
        .execute();
    expect((await getLiquidation(db, row(44).vault_id))?.status).toBe('liquidated');
  });
});

// The store's side of a repossession whose fate the chain decides, on SQLite always and on
// PostgreSQL when TEST_DATABASE_URL is set: the repossessions not yet mined, in liquidated vault id
// order from a cursor, bounded; settling one the owner's exit beat (the vault exited, its
// liquidation ended by the exit, the claimant's vault back as it was, the claim's records gone, the
// request failed), once; and offering one again that can never be mined.
import { describe, expect, it } from 'vitest';
import type { Kysely } from 'kysely';
import { applyEffects, type Effects } from '../src/cosign/effects';
import { guardianMigrations } from '../src/cosign/migrations';
import {
  appendVaultHistory,
  closeRepossessionByExit,
  EXIT_WON_REASON,
  getLiquidation,
  getVault,
  INPUT_SPENT_REASON,
  insertVault,
  recordLiquidation,
  reopenLiquidation,
  REPOSSESSION_CHECK_BATCH,
  repossessionRequest,
  unconfirmedRepossessions,
  vaultHistory,
  type Database,
} from '../src/store';
import { storeDialects, storePerTest, termedVaultRow } from './dialect-stores';

const claimOf = (n: number) => n.toString(16).padStart(4, '0').repeat(16);
const EXIT = { txid: 'ee'.repeat(32), payoutScript: `5120${'0f'.repeat(32)}`, timestamp: 900 };

/** The claimant's row before the repossession: its own output, amounts and term. */
const beforeOf = (claimant: number) => ({
  ...{ vault_txid: termedVaultRow(claimant).vault_txid, vault_vout: 0 },
  ...{ btc_locked: 1_000, unit_borrowed: 0, threshold_cents: 0, stamp: 1 },
  ...{ settle_height: 100 + claimant, exit_height: 120 + claimant },
});

/** Vault `n` liquidated and claimed by vault `claimant` in the sent (not mined) transaction. */
async function pendingClaim(db: Kysely<Database>, n: number, claimant: number) {
  await insertVault(db, { ...termedVaultRow(n), unit_borrowed: 59_000 });
  await recordLiquidation(db, {
    ...{ vault_id: termedVaultRow(n).vault_id, liquidated_at: 50, liquidation_hash: 'aa' },
    ...{ threshold_cents: 7_965_000, price_cents: 7_900_000, btc_locked: 1_000 },
    unit_borrowed: 59_000,
  });
  const effects: Effects = {
    kind: 'repossess',
    vault_id: termedVaultRow(claimant).vault_id,
    after: {
      ...{ btc_locked: 1_850, unit_borrowed: 59_000, threshold_cents: 7_000_000, stamp: 9 },
      ...{ utxo_script: '51', settle_height: 500, exit_height: 520 },
    },
    history: { action: 'x', btc_amt: 850, unit_amt: 59_000, oracle_price: 79_000 },
    liquidated: {
      ...{ vault_id: termedVaultRow(n).vault_id, btc_amt: 1_000, unit_amt: 59_000 },
      utxo_script: '52',
    },
    before: beforeOf(claimant),
  };
  const txid = claimOf(n);
  await db.transaction().execute((trx) => applyEffects(trx, effects, txid, 800));
  await db
    .insertInto('guardian_requests')
    .values({
      ...{ nonce: `n${n}`, method: 'vault.repossess', vault_id: termedVaultRow(claimant).vault_id },
      ...{ vault_pubkey: termedVaultRow(claimant).vault_pubkey, state: 'broadcast', txid },
      ...{ raw_hex: '00', error: null, expires_at: 1, created_at: 1, updated_at: 1 },
      effects: JSON.stringify(effects),
    })
    .execute();
  return txid;
}

/** Claimant vault `n` with its opening, confirmed. */
async function claimantVault(db: Kysely<Database>, n: number) {
  const row = termedVaultRow(n);
  await insertVault(db, row);
  await appendVaultHistory(db, {
    ...{ vault_id: row.vault_id, timestamp: 1, action: 'o', btc_amt: 1_000, unit_amt: 0 },
    ...{ vault_amount: 1_000, amount_borrowed: 0, oracle_price: 1, transaction_id: row.vault_txid },
    ...{ utxo: `${row.vault_txid}:0`, utxo_script: '51', confirmed: 1 },
    ...{ liquidation_hash: null, liquidation_threshold: null },
  });
}

describe.each(storeDialects('race'))('repossessions the chain decides on %s', (_, open) => {
  const openedStore = storePerTest(open, guardianMigrations);

  it('reads the repossessions not yet mined, in id order from a cursor, bounded', async () => {
    const { db } = await openedStore();
    await claimantVault(db, 1);
    for (const n of [5, 3, 7]) await pendingClaim(db, n, 1);
    // Mined: no longer read.
    await db
      .updateTable('vault_history')
      .set({ confirmed: 1 })
      .where('transaction_id', '=', claimOf(7))
      .execute();
    const page = await unconfirmedRepossessions(db);
    expect(page.map((r) => [r.vault_id, r.claim_txid, r.claimed_by])).toEqual([
      [termedVaultRow(3).vault_id, claimOf(3), termedVaultRow(1).vault_id],
      [termedVaultRow(5).vault_id, claimOf(5), termedVaultRow(1).vault_id],
    ]);
    expect(page[0]).toMatchObject({ btc_locked: 1_000, unit_borrowed: 59_000 });
    expect(page[0]?.claimant_pubkey).toBe(termedVaultRow(1).vault_pubkey);
    expect((await unconfirmedRepossessions(db, termedVaultRow(3).vault_id)).length).toBe(1);
    expect(await unconfirmedRepossessions(db, '', 1)).toHaveLength(1);
    expect(await unconfirmedRepossessions(db, '', 1_000)).toHaveLength(2);
    // However many wait, one page is at most a batch.
    for (let n = 10; n < 10 + REPOSSESSION_CHECK_BATCH; n++) await pendingClaim(db, n, 1);
    expect(await unconfirmedRepossessions(db, '', 1_000)).toHaveLength(REPOSSESSION_CHECK_BATCH);
  });

  it("settles one the owner's exit beat once: exited, the claimant's vault as it was", async () => {
    const { db } = await openedStore();
    await claimantVault(db, 1);
    const claim = await pendingClaim(db, 4, 1);
    const [race] = await unconfirmedRepossessions(db);
    const { before } = await repossessionRequest(db, claim);
    expect(before).toEqual(beforeOf(1));
    // A claim that changed meanwhile (a speed-up followed) is left alone.
    expect(
      await closeRepossessionByExit(db, { ...race!, claim_txid: 'ab'.repeat(32) }, EXIT, before),
    ).toBe(false);
    expect(await closeRepossessionByExit(db, race!, EXIT, before)).toBe(true);
    expect(await getVault(db, race!.vault_id)).toMatchObject({
      ...{ status: 'exited', btc_locked: 0, unit_borrowed: 0 },
    });
    expect(await getLiquidation(db, race!.vault_id)).toMatchObject({
      ...{ status: 'exited', claimed_by: null, claim_txid: EXIT.txid },
    });
    expect((await vaultHistory(db, race!.vault_id)).map((r) => r.action)).toEqual(['e']);
    expect(await getVault(db, termedVaultRow(1).vault_id)).toMatchObject({
      ...beforeOf(1),
      status: 'active',
    });
    expect(
      (await vaultHistory(db, termedVaultRow(1).vault_id)).map((r) => r.transaction_id),
    ).toEqual([termedVaultRow(1).vault_txid]);
    const request = await db
      .selectFrom('guardian_requests')
      .select(['state', 'error'])
      .executeTakeFirst();
    expect(request).toEqual({ state: 'failed', error: EXIT_WON_REASON });
    expect(await closeRepossessionByExit(db, race!, EXIT, before)).toBe(false);
    expect(await unconfirmedRepossessions(db)).toEqual([]);
  });

  it('offers one again that can never be mined, the claimant back as it was', async () => {
    const { db } = await openedStore();
    await claimantVault(db, 1);
    const claim = await pendingClaim(db, 6, 1);
    const [race] = await unconfirmedRepossessions(db);
    const { before } = await repossessionRequest(db, claim);
    expect(await reopenLiquidation(db, race!, before, 950)).toBe(true);
    expect(await getVault(db, race!.vault_id)).toMatchObject({
      ...{ status: 'liquidated', btc_locked: 1_000, unit_borrowed: 59_000 },
    });
    expect(await getLiquidation(db, race!.vault_id)).toMatchObject({
      ...{ status: 'liquidated', claimed_by: null, claim_txid: null },
    });
    expect((await vaultHistory(db, race!.vault_id)).map((r) => r.action)).toEqual([]);
    expect(await getVault(db, termedVaultRow(1).vault_id)).toMatchObject(beforeOf(1));
    const request = await db.selectFrom('guardian_requests').select('error').executeTakeFirst();
    expect(request?.error).toBe(INPUT_SPENT_REASON);
    expect(await reopenLiquidation(db, race!, before, 950)).toBe(false);
  });
});

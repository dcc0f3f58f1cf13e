// The vaults whose owner may have left by the exit (docs/protocol.md, "Leaving without the
// guardians"): vaults of layout 2 whose output is still theirs (active, or liquidated with no
// claimant yet: the exit leaf opens for them too) and whose exit height the chain's tip has
// reached, and the history record `e` an exit writes (cosign/exits.ts from the block watcher,
// operator/reindex.ts from the chain: the same record either way).
import type { Kysely } from 'kysely';
import type { Database } from './schema';
import { appendVaultHistory, type VaultRow } from './vaults';

/** Vaults looked at per block: one chain read each, so a block's pass stays short. */
export const EXIT_CHECK_BATCH = 50;

/** The statuses whose output its owner may still take by the exit leaf. */
export const EXITABLE_STATUSES = ['active', 'liquidated'] as const;

/**
 * Active or liquidated (not yet repossessed) vaults whose exit height is at or below `tipHeight`,
 * after the vault id `after` in id order (so successive passes take every such vault in turn), at
 * most `limit`: one page for both statuses.
 */
export function vaultsPastExit(
  db: Kysely<Database>,
  tipHeight: number,
  after = '',
  limit = EXIT_CHECK_BATCH,
): Promise<VaultRow[]> {
  return db
    .selectFrom('vaults')
    .selectAll()
    .where('status', 'in', [...EXITABLE_STATUSES])
    .where('exit_height', 'is not', null)
    .where('exit_height', '<=', tipHeight)
    .where('vault_id', '>', after)
    .orderBy('vault_id')
    .limit(Math.max(1, Math.min(limit, EXIT_CHECK_BATCH)))
    .execute();
}

/**
 * The history `e` of an exit: what the vault held (its collateral and its debt, which no one
 * repaid), nothing left after it, the exit's output 0 (the owner's payout) as its utxo. No price:
 * the exit used none. The same record a reindex writes from the chain.
 */
export function exitHistory(
  vaultId: string,
  held: { btc_locked: number | bigint; unit_borrowed: number | bigint },
  txid: string,
  payoutScript: string,
  timestamp: number,
) {
  return {
    vault_id: vaultId,
    timestamp,
    action: 'e' as const,
    btc_amt: Number(held.btc_locked),
    unit_amt: Number(held.unit_borrowed),
    vault_amount: 0,
    amount_borrowed: 0,
    oracle_price: 0,
    transaction_id: txid,
    utxo: `${txid}:0`,
    utxo_script: payoutScript,
    liquidation_hash: null,
    liquidation_threshold: null,
    confirmed: 1,
  };
}

/**
 * Closes the vault its owner left by the exit `txid` (paying `payoutScript`), if its row still names
 * the output the exit spent and still holds it (active, or liquidated with no claimant): `exited`,
 * nothing left in it, history `e`; a liquidation waiting for a claimant ends as `exited` too, with
 * the exit as the transaction that took it, so no one is offered it any more. False when the row
 * moved on (another pass closed it, or a repossession took it first).
 */
export function closeVaultByExit(
  db: Kysely<Database>,
  row: Pick<VaultRow, 'vault_id' | 'vault_txid' | 'vault_vout' | 'btc_locked' | 'unit_borrowed'>,
  exit: { txid: string; payoutScript: string; timestamp: number },
): Promise<boolean> {
  const { txid, payoutScript, timestamp } = exit;
  return db.transaction().execute(async (trx) => {
    const closed = await trx
      .updateTable('vaults')
      .set({ status: 'exited', btc_locked: 0, unit_borrowed: 0, updated_at: timestamp })
      .where('vault_id', '=', row.vault_id)
      .where('status', 'in', [...EXITABLE_STATUSES])
      .where('vault_txid', '=', row.vault_txid)
      .where('vault_vout', '=', row.vault_vout)
      .executeTakeFirst();
    if (Number(closed.numUpdatedRows) !== 1) return false;
    // Only a liquidated vault has a liquidation waiting for a claimant: it ends here.
    await trx
      .updateTable('liquidations')
      .set({ status: 'exited', claim_txid: txid })
      .where('vault_id', '=', row.vault_id)
      .where('status', '=', 'liquidated')
      .execute();
    await appendVaultHistory(trx, exitHistory(row.vault_id, row, txid, payoutScript, timestamp));
    return true;
  });
}

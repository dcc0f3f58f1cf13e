// The vaults whose owner may have left by the exit (docs/protocol.md, "Leaving without the
// guardians"): active vaults of layout 2 whose exit height the chain's tip has reached, and the
// history record `e` an exit writes (cosign/exits.ts from the block watcher, operator/reindex.ts
// from the chain: the same record either way).
import type { Kysely } from 'kysely';
import type { Database } from './schema';
import type { VaultRow } from './vaults';

/** Vaults looked at per block: one chain read each, so a block's pass stays short. */
export const EXIT_CHECK_BATCH = 50;

/**
 * Active vaults whose exit height is at or below `tipHeight`, after the vault id `after` in id
 * order (so successive passes take every such vault in turn), at most `limit`.
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
    .where('status', '=', 'active')
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

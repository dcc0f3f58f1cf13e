// What the store writes when a vault transaction is replaced by a speed-up (speedup.ts) or when a
// replacement whose answer was lost turns up on the chain (speedup-settle.ts).
import type { GuardianContext } from './context';

/**
 * Keeps what a block may yet undo: the original (and any transaction it replaced in turn) could
 * still be mined instead of `txid`.
 */
export async function rememberReplacement(
  g: GuardianContext,
  nonce: string,
  replacedTxid: string,
  replacedHex: string,
  txid: string,
): Promise<void> {
  const db = g.db;
  await db.transaction().execute(async (trx) => {
    // A second speed-up: what the first replaced now waits on the newest transaction.
    await trx
      .updateTable('guardian_replacements')
      .set({ txid })
      .where('txid', '=', replacedTxid)
      .execute();
    await trx
      .insertInto('guardian_replacements')
      .values({
        txid,
        replaced_txid: replacedTxid,
        replaced_hex: replacedHex,
        nonce,
        created_at: g.now(),
      })
      .execute();
  });
}

/**
 * Points everything the original's broadcast wrote at the replacement, in one transaction: the
 * vault's output, its history records (and a liquidated vault's claim record), the liquidation's
 * claim and the guardian's own request. The vault id of an open stays the original txid: it names
 * the vault, and the app already holds it.
 */
export async function followReplacement(
  g: GuardianContext,
  nonce: string,
  originalTxid: string,
  signed: { txid: string; hex: string },
): Promise<void> {
  const txid = signed.txid;
  await g.db.transaction().execute(async (trx) => {
    await trx
      .updateTable('vaults')
      .set({ vault_txid: txid, updated_at: g.now() })
      .where('vault_txid', '=', originalTxid)
      .execute();
    await trx
      .updateTable('vault_history')
      .set({ utxo: `${txid}:0` })
      .where('utxo', '=', `${originalTxid}:0`)
      .execute();
    await trx
      .updateTable('vault_history')
      .set({ transaction_id: txid })
      .where('transaction_id', '=', originalTxid)
      .execute();
    await trx
      .updateTable('liquidations')
      .set({ claim_txid: txid })
      .where('claim_txid', '=', originalTxid)
      .execute();
    await trx
      .updateTable('guardian_requests')
      .set({ txid, raw_hex: signed.hex, updated_at: g.now() })
      .where('nonce', '=', nonce)
      .execute();
  });
}

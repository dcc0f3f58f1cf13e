// The guardian's jobs between requests: the liquidation sweep on every oracle tick, and marking
// history confirmed as blocks arrive.
import { hex } from '@scure/base';
import { sql } from 'kysely';
import {
  appendVaultHistory,
  liquidatableVaults,
  markHistoryConfirmed,
  recordLiquidation,
} from '../store';
import type { GuardianContext } from './context';

/**
 * ARCHITECTURE.md, Liquidation: every active vault whose threshold price the oracle price has
 * reached (ratio <= 135%) is marked liquidated, with history `l`. Returns the vaults liquidated now.
 */
export async function liquidationSweep(
  g: GuardianContext,
  priceCents: number,
  time: number,
): Promise<string[]> {
  const liquidated: string[] = [];
  for (const vault of await liquidatableVaults(g.db, priceCents)) {
    const hash = hex.encode(g.oracle.thresholdHash(BigInt(vault.threshold_cents), vault.stamp));
    const fresh = await recordLiquidation(g.db, {
      vault_id: vault.vault_id,
      liquidated_at: time,
      liquidation_hash: hash,
      threshold_cents: vault.threshold_cents,
      price_cents: priceCents,
      btc_locked: vault.btc_locked,
      unit_borrowed: vault.unit_borrowed,
    });
    // A vault already recorded by an earlier tick gets no second `l`.
    if (!fresh) continue;
    await appendVaultHistory(g.db, {
      vault_id: vault.vault_id,
      timestamp: time,
      action: 'l',
      btc_amt: vault.btc_locked,
      unit_amt: vault.unit_borrowed,
      vault_amount: vault.btc_locked,
      amount_borrowed: vault.unit_borrowed,
      oracle_price: Math.floor(priceCents / 100),
      // No transaction of its own: the record points at the vault output the liquidation opens.
      transaction_id: vault.vault_txid,
      utxo: `${vault.vault_txid}:${vault.vault_vout}`,
      utxo_script: '',
      liquidation_hash: hash,
      liquidation_threshold: vault.threshold_cents,
      confirmed: 1,
    });
    g.log.info({ vault: vault.vault_id, priceCents }, 'vault liquidated');
    liquidated.push(vault.vault_id);
  }
  return liquidated;
}

/** Marks history confirmed for every pending transaction the chain now reports in a block. */
export async function confirmHistory(g: GuardianContext): Promise<string[]> {
  const pending = await g.db
    .selectFrom('vault_history')
    .select('transaction_id')
    .distinct()
    // A literal, not a parameter: SQLite uses the partial index of unconfirmed records (migration
    // 0300) only when the query names the value.
    .where('confirmed', '=', sql.lit(0))
    .execute();
  const confirmed: string[] = [];
  for (const { transaction_id: txid } of pending) {
    const status = await g.chain.txStatus(txid);
    if (status?.confirmed) {
      await markHistoryConfirmed(g.db, txid);
      confirmed.push(txid);
    }
  }
  return confirmed;
}

// The guardian's jobs between requests: the liquidation sweep on every oracle tick, and marking
// history confirmed as blocks arrive.
import { hex } from '@scure/base';
import { sql } from 'kysely';
import {
  appendVaultHistory,
  getVault,
  liquidatableVaults,
  markHistoryConfirmed,
  recordLiquidation,
  type VaultRow,
} from '../store';
import type { GuardianContext } from './context';
import { acquireLocks, lockOwner, releaseLocks, vaultLock } from './locks';
import { catchUpVault } from './settle';

/** The vault as it is now, if the price still reaches its threshold and its output is unspent. */
async function stillLiquidatable(
  g: GuardianContext,
  vaultId: string,
  priceCents: number,
  caughtUp = 0,
): Promise<VaultRow | null> {
  const vault = await getVault(g.db, vaultId);
  if (!vault || vault.status !== 'active') return null;
  if (vault.threshold_cents <= 0 || vault.threshold_cents < priceCents) return null;
  // A transaction already moved the vault (its effects not yet stored, e.g. before a restart's
  // recovery): the stored threshold is no longer the one its output commits to. One of ours whose
  // request failed while its answer was lost is committed now, and the vault judged as it is.
  const output = await g.chain.output(vault.vault_txid, vault.vault_vout);
  if (!output) return null;
  if (output.spent)
    return caughtUp < 2 && (await catchUpVault(g, vault))
      ? stillLiquidatable(g, vaultId, priceCents, caughtUp + 1)
      : null;
  return vault;
}

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
  for (const candidate of await liquidatableVaults(g.db, priceCents)) {
    // The vault's lock, as every request takes it: a vault with a request in flight is left to
    // the next tick, which judges it by the threshold its new output commits to.
    const owner = lockOwner('sweep');
    const holder = { owner, instanceId: g.instance.id };
    if (!(await acquireLocks(g.db, [vaultLock(candidate.vault_pubkey)], holder, g.now()))) continue;
    try {
      const vault = await stillLiquidatable(g, candidate.vault_id, priceCents);
      if (vault && (await liquidate(g, vault, priceCents, time))) liquidated.push(vault.vault_id);
    } finally {
      await releaseLocks(g.db, owner);
    }
  }
  return liquidated;
}

/** Records one liquidation and its history `l`; false when an earlier tick already did. */
async function liquidate(
  g: GuardianContext,
  vault: VaultRow,
  priceCents: number,
  time: number,
): Promise<boolean> {
  // The first oracle's hash (the vault's first liquidation leaf) names the liquidation.
  const [first] = await g.oracle.thresholdHashes(BigInt(vault.threshold_cents), vault.stamp);
  const hash = hex.encode(first!);
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
  if (!fresh) return false;
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
  return true;
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

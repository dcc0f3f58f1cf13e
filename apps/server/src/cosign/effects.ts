// What a vault request changes in the store once its transaction is on the network, as plain data.
// It is written with the request before the broadcast, so the same effects can be committed by the
// request itself or, after a crash between broadcast and commit, by recover.ts.
import type { Kysely } from 'kysely';
import type { ActionCodeColumn, ClaimantState, Database } from '../store';
import { appendVaultHistory, insertVault, updateVaultState } from '../store';

/** The vault's state after the transaction; its output is always vout 0 (docs/protocol.md). */
export interface VaultAfter {
  btc_locked: number;
  unit_borrowed: number;
  threshold_cents: number;
  stamp: number;
  /** hex of the new vault output script */
  utxo_script: string;
  /** The term the new output commits to (layout 2); absent: layout 1. */
  settle_height?: number;
  exit_height?: number;
}

export interface HistoryEffect {
  action: Exclude<ActionCodeColumn, 'l'>;
  btc_amt: number;
  unit_amt: number;
  oracle_price: number;
}

export type Effects =
  | {
      kind: 'open';
      vault_pubkey: string;
      name: string;
      creation_account: string;
      runes_account: string;
      after: VaultAfter;
      history: HistoryEffect;
      reservation_id: string | null;
    }
  | {
      kind: 'update';
      vault_id: string;
      after: VaultAfter;
      history: HistoryEffect;
      reservation_id: string | null;
    }
  | {
      kind: 'repossess';
      /** the claimant's vault */
      vault_id: string;
      after: VaultAfter;
      history: HistoryEffect;
      liquidated: { vault_id: string; btc_amt: number; unit_amt: number; utxo_script: string };
      /**
       * The claimant's vault before the repossession, to go back to should the repossession never
       * be mined (its owner's exit took the liquidated output); absent from older requests.
       */
      before?: ClaimantState;
    }
  | SettleEffects;

/**
 * The guardians' settlement at the term (term-settle-round.ts): the vault closes, its debt repaid
 * from its collateral; the history's `s` names what it held and where the owner's rest went.
 */
export interface SettleEffects {
  kind: 'settle';
  vault_id: string;
  /** What the vault held when settled: its collateral (sats) and debt (UNIT hundredths). */
  btc_amt: number;
  unit_amt: number;
  /** The quorum's price, whole USD, as every history record keeps it. */
  oracle_price: number;
  /** The owner's output, `OP_1 <vault_pubkey>` (hex), and its index; null when dust left none. */
  owner_vout: number | null;
  owner_script: string;
}

export async function saveEffects(
  db: Kysely<Database>,
  nonce: string,
  effects: Effects,
): Promise<void> {
  await db
    .updateTable('guardian_requests')
    .set({ effects: JSON.stringify(effects) })
    .where('nonce', '=', nonce.toLowerCase())
    .execute();
}

/** The vault id a transaction creates or updates: an open's vault is named by its txid. */
export function effectsVaultId(effects: Effects, txid: string): string {
  return effects.kind === 'open' ? txid : effects.vault_id;
}

/** Every vault whose row the effects change: the vault itself and, for a repossess, the claimed one. */
export function changedVaultIds(effects: Effects, txid: string): string[] {
  const id = effectsVaultId(effects, txid);
  return effects.kind === 'repossess' ? [id, effects.liquidated.vault_id] : [id];
}

/** Stores what the broadcast transaction `txid` did; run inside one database transaction. */
export async function applyEffects(
  trx: Kysely<Database>,
  effects: Effects,
  txid: string,
  now: number,
): Promise<void> {
  if (effects.kind === 'settle') return applySettlement(trx, effects, txid, now);
  const vaultId = effectsVaultId(effects, txid);
  const { after } = effects;
  const state = {
    btc_locked: after.btc_locked,
    unit_borrowed: after.unit_borrowed,
    vault_txid: txid,
    vault_vout: 0,
    threshold_cents: after.threshold_cents,
    stamp: after.stamp,
    // The row describes its output: a layout 1 output has no term.
    settle_height: after.settle_height ?? null,
    exit_height: after.exit_height ?? null,
  };
  if (effects.kind === 'open') {
    await insertVault(trx, {
      vault_id: vaultId,
      vault_tag: vaultId.slice(0, 8),
      vault_pubkey: effects.vault_pubkey,
      name: effects.name,
      creation_account: effects.creation_account,
      runes_account: effects.runes_account,
      ...state,
      status: 'active',
      created_at: now,
    });
  } else {
    await updateVaultState(trx, vaultId, state, now);
  }
  const record = {
    timestamp: now,
    transaction_id: txid,
    liquidation_hash: null,
    liquidation_threshold: null,
    confirmed: 0,
  };
  await appendVaultHistory(trx, {
    ...record,
    ...effects.history,
    vault_id: vaultId,
    vault_amount: after.btc_locked,
    amount_borrowed: after.unit_borrowed,
    utxo: `${txid}:0`,
    utxo_script: after.utxo_script,
  });
  if (effects.kind !== 'repossess' && effects.reservation_id !== null) {
    await trx
      .updateTable('reservations')
      .set({ status: 'used' })
      .where('reservation_id', '=', effects.reservation_id)
      .execute();
  }
  if (effects.kind === 'repossess') {
    const { liquidated } = effects;
    // recordRepossession opens its own database transaction, which Kysely cannot nest inside
    // this one; these are its two writes, kept atomic with the claimant's new state.
    await trx
      .updateTable('liquidations')
      .set({ status: 'repossessed', claimed_by: vaultId, claim_txid: txid })
      .where('vault_id', '=', liquidated.vault_id)
      .execute();
    // Its collateral and debt now belong to the claimant's vault: the record holds nothing.
    await trx
      .updateTable('vaults')
      .set({ status: 'repossessed', btc_locked: 0, unit_borrowed: 0, updated_at: now })
      .where('vault_id', '=', liquidated.vault_id)
      .execute();
    await appendVaultHistory(trx, {
      ...record,
      vault_id: liquidated.vault_id,
      action: 'x',
      btc_amt: liquidated.btc_amt,
      unit_amt: liquidated.unit_amt,
      vault_amount: 0,
      amount_borrowed: 0,
      oracle_price: effects.history.oracle_price,
      utxo: `${txid}:0`,
      utxo_script: liquidated.utxo_script,
    });
  }
}

/** The vault settled: nothing left in it, status `settled`, history `s` (unconfirmed until mined). */
async function applySettlement(
  trx: Kysely<Database>,
  effects: SettleEffects,
  txid: string,
  now: number,
): Promise<void> {
  await trx
    .updateTable('vaults')
    .set({ status: 'settled', btc_locked: 0, unit_borrowed: 0, updated_at: now })
    .where('vault_id', '=', effects.vault_id)
    .execute();
  await appendVaultHistory(trx, {
    vault_id: effects.vault_id,
    timestamp: now,
    action: 's',
    btc_amt: effects.btc_amt,
    unit_amt: effects.unit_amt,
    vault_amount: 0,
    amount_borrowed: 0,
    oracle_price: effects.oracle_price,
    transaction_id: txid,
    // What returned to the owner; the treasury's output when dust left the owner none.
    utxo: `${txid}:${effects.owner_vout ?? 0}`,
    utxo_script: effects.owner_vout === null ? '' : effects.owner_script,
    liquidation_hash: null,
    liquidation_threshold: null,
    confirmed: 0,
  });
}

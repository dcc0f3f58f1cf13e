// unit.reserve (SPEC §3 Reserve, §7): hands an open or a borrow the treasury UNIT UTXO its
// transaction must spend, locked to that reservation until it expires, so two issues never race for
// one output. A repay needs no treasury UTXO, only the treasury address to pay back to.
import { randomBytes } from 'node:crypto';
import { RESERVE_TIMEOUT_MS, type ReserveParams, type ReserveResult } from '@unit/protocol';
import { DomainError } from '../rpc/json-rpc';
import { activeReservations, getVaultByPubkey, insertReservation } from '../store';
import type { GuardianContext } from './context';

/** SPEC §7: 30 s. */
export const RESERVATION_SECONDS = RESERVE_TIMEOUT_MS / 1000;

export async function reserve(g: GuardianContext, params: ReserveParams): Promise<ReserveResult> {
  const pubkey = params.vault_pubkey.toLowerCase();
  const vault = await getVaultByPubkey(g.db, pubkey);
  if (params.vault_action === 'open') {
    // docs/protocol.md: one vault per key.
    if (vault) throw new DomainError('vault_exists', 'A vault already exists for this key');
  } else {
    if (!vault) throw new DomainError('not_found', 'No vault exists for this key');
    if (vault.status !== 'active')
      throw new DomainError('vault_liquidated', 'This vault has been liquidated');
  }
  if (params.vault_action !== 'repay' && params.unit_amount <= 0)
    throw new DomainError('bad_request', 'The UNIT amount must be positive');

  const now = g.now();
  const expiresAt = now + RESERVATION_SECONDS;
  const reservationId = randomBytes(16).toString('hex');
  const base = {
    reservation_id: reservationId,
    vault_pubkey: pubkey,
    vault_action: params.vault_action,
    unit_amount: params.unit_amount,
    expires_at: expiresAt,
    created_at: now,
  };
  const result = {
    reservation_id: reservationId,
    expires_at: expiresAt,
    treasury_address: g.treasuryAddress,
    postage_sats: g.postageSats,
  };
  if (params.vault_action === 'repay') {
    await insertReservation(g.db, { ...base, treasury_txid: null, treasury_vout: null });
    return { ...result, treasury_utxo: null };
  }

  const held = new Set(
    (await activeReservations(g.db, now))
      .filter((r) => r.treasury_txid !== null)
      .map((r) => `${r.treasury_txid}:${r.treasury_vout}`),
  );
  const free = (await g.chain.unitOutputs(g.treasuryAddress))
    .filter((o) => !o.spent && o.unit_amount >= params.unit_amount)
    .filter((o) => !held.has(`${o.txid}:${o.vout}`))
    // The smallest output that covers the amount leaves larger ones for larger issues.
    .sort((a, b) => a.unit_amount - b.unit_amount);
  const utxo = free[0];
  if (!utxo)
    throw new DomainError(
      'insufficient_funds',
      'The treasury has no free UNIT output for this amount right now; please try again',
    );
  await insertReservation(g.db, { ...base, treasury_txid: utxo.txid, treasury_vout: utxo.vout });
  return {
    ...result,
    treasury_utxo: {
      txid: utxo.txid,
      vout: utxo.vout,
      value: utxo.btc_amount,
      script_hex: utxo.script_hex,
      unit_amount: utxo.unit_amount,
    },
  };
}

/**
 * Frees the treasury output of a request that was refused, so the next open or borrow need not
 * wait out the 30 s; only the key that reserved it can free it.
 */
export async function releaseReservation(
  g: GuardianContext,
  reservationId: string,
  vaultPubkey: string,
): Promise<void> {
  await g.db
    .updateTable('reservations')
    .set({ status: 'released' })
    .where('reservation_id', '=', reservationId)
    .where('vault_pubkey', '=', vaultPubkey.toLowerCase())
    .where('status', '=', 'active')
    .execute();
}

// unit.reserve (SPEC §3 Reserve, §7): hands an open or a borrow the treasury UNIT UTXO its
// transaction must spend; a repay needs no treasury UTXO, only the treasury address to pay back to.
//
// A treasury no one can starve: reserve is unsigned and free, so a reservation holds nothing
// exclusively. It names the output least held by other live reservations (a free one whenever
// there is one), and the output becomes one request's only once that request has passed every
// check: signatures, funds on chain, the rules (pipeline.ts locks it from validation to broadcast).
// Flooding reserve from many keys therefore takes nothing from a user who can sign and pay. What
// bounds the flood is the transport (json-rpc.ts: calls per connection and per address, sockets per
// address) and, here, a few live reservations per connection, each released when its socket closes.
import { randomBytes } from 'node:crypto';
import {
  ACTION_SHAPES,
  keyMayOpenVault,
  type ReserveParams,
  type ReserveResult,
} from '@unit/protocol';
import { DomainError } from '../errors';
import type { RpcClient } from '../rpc/json-rpc';
import { getVaultByPubkey, type VaultRow } from '../store';
import type { GuardianContext } from './context';
import { heldTreasuryOutputs } from './locks';

/**
 * How long a reservation stays valid: it is taken before the wallet prompt, so it covers a user
 * reading that prompt (and a hardware wallet); SPEC §7's 30 s is how long the reserve call itself
 * may take to answer. As long as the web app's signed requests live (guardian-client.ts).
 */
export const RESERVATION_SECONDS = 300;

/** Live reservations one connection may hold; the web app uses one per flow and socket. */
export const RESERVATIONS_PER_CONNECTION = 4;

/** Most live reservations counted when ranking outputs; the transport's limits keep it far off. */
const COUNT_LIMIT = 10_000;

export async function reserve(
  g: GuardianContext,
  params: ReserveParams,
  client: RpcClient | undefined,
): Promise<ReserveResult> {
  const pubkey = params.vault_pubkey.toLowerCase();
  // What the action reserves (@unit/protocol ACTION_SHAPES): an issue a treasury UNIT UTXO for a
  // positive amount, a repay only the treasury address to pay back to.
  const shape = ACTION_SHAPES[params.vault_action];
  if (shape.reserve === 'treasury-utxo' && params.unit_amount <= 0)
    throw new DomainError('bad_request', 'The UNIT amount must be positive');
  const vault = await getVaultByPubkey(g.db, pubkey);
  if (shape.vault === 'creates') {
    refuseSecondVault(vault);
  } else {
    if (!vault) throw new DomainError('not_found', 'No vault exists for this key');
    if (vault.status !== 'active')
      throw new DomainError('vault_liquidated', 'This vault has been liquidated');
  }

  const db = g.db;
  const now = g.now();
  if (client) {
    // The same key asking again on its connection replaces its earlier reservation (a retry);
    // another connection's reservations for the key are left alone: reserve is unsigned, so
    // anyone may name any key.
    await db
      .updateTable('reservations')
      .set({ status: 'released' })
      .where('connection_id', '=', client.connectionId)
      .where('vault_pubkey', '=', pubkey)
      .where('status', '=', 'active')
      .execute();
    const live = await db
      .selectFrom('reservations')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('connection_id', '=', client.connectionId)
      .where('status', '=', 'active')
      .where('expires_at', '>', now)
      .executeTakeFirstOrThrow();
    if (Number(live.n) >= RESERVATIONS_PER_CONNECTION)
      throw new DomainError(
        'rate_limited',
        'This connection already holds its share of reservations; please use them or reconnect',
      );
  }

  const expiresAt = now + RESERVATION_SECONDS;
  const reservationId = randomBytes(16).toString('hex');
  const base = {
    reservation_id: reservationId,
    vault_pubkey: pubkey,
    vault_action: params.vault_action,
    unit_amount: params.unit_amount,
    expires_at: expiresAt,
    created_at: now,
    status: 'active' as const,
    connection_id: client?.connectionId ?? null,
    client_address: client?.address ?? null,
  };
  const result = {
    reservation_id: reservationId,
    expires_at: expiresAt,
    treasury_address: g.treasuryAddress,
    postage_sats: g.postageSats,
  };
  if (shape.reserve !== 'treasury-utxo') {
    await db
      .insertInto('reservations')
      .values({ ...base, treasury_txid: null, treasury_vout: null })
      .execute();
    return { ...result, treasury_utxo: null };
  }

  const inFlight = await heldTreasuryOutputs(g.db, now);
  const load = await reservationsPerOutput(g, now);
  const candidates = (await g.chain.unitOutputs(g.treasuryAddress))
    .filter((o) => !o.spent && o.unit_amount >= params.unit_amount)
    .filter((o) => !inFlight.has(`${o.txid}:${o.vout}`))
    // The least held output first; among equals the smallest that covers the amount, which
    // leaves larger ones for larger issues.
    .sort(
      (a, b) =>
        (load.get(`${a.txid}:${a.vout}`) ?? 0) - (load.get(`${b.txid}:${b.vout}`) ?? 0) ||
        a.unit_amount - b.unit_amount,
    );
  const utxo = candidates[0];
  if (!utxo)
    throw new DomainError(
      'insufficient_funds',
      'The treasury has no free UNIT output for this amount right now; please try again',
    );
  await db
    .insertInto('reservations')
    .values({ ...base, treasury_txid: utxo.txid, treasury_vout: utxo.vout })
    .execute();
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
 * docs/protocol.md, Vault keys: one live vault per key. A key may open again once its vault has been
 * liquidated and repossessed; a liquidation not yet claimed still holds the key (the rule and its
 * reasons: @unit/protocol keyMayOpenVault).
 */
export function refuseSecondVault(latest: VaultRow | null): void {
  if (keyMayOpenVault(latest)) return;
  if (latest?.status === 'liquidated')
    throw new DomainError(
      'vault_exists',
      "This key's vault was liquidated and has not been repossessed yet; a new vault can be opened once it has been",
    );
  throw new DomainError('vault_exists', 'A vault already exists for this key');
}

/** Live reservations per treasury outpoint (`txid:vout`). */
async function reservationsPerOutput(
  g: GuardianContext,
  now: number,
): Promise<Map<string, number>> {
  const rows = await g.db
    .selectFrom('reservations')
    .select(['treasury_txid', 'treasury_vout', (eb) => eb.fn.countAll<number>().as('n')])
    .where('status', '=', 'active')
    .where('expires_at', '>', now)
    .where('treasury_txid', 'is not', null)
    .groupBy(['treasury_txid', 'treasury_vout'])
    .limit(COUNT_LIMIT)
    .execute();
  return new Map(rows.map((r) => [`${r.treasury_txid}:${r.treasury_vout}`, Number(r.n)]));
}

/** Releases what a connection still holds once its socket has closed. */
export async function releaseConnection(g: GuardianContext, connectionId: string): Promise<void> {
  await g.db
    .updateTable('reservations')
    .set({ status: 'released' })
    .where('connection_id', '=', connectionId)
    .where('status', '=', 'active')
    .execute();
}

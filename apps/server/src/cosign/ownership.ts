// Which server instance works on a guardian request. Several instances share one database
// (cluster/), so a request left in 'received', 'validated' or 'cosigned' is either in the hands of
// a live instance right now, or was left behind by one that stopped. Only the second kind may be
// settled by recovery (recover.ts): each request row names its instance, and an instance settles a
// request only after taking it over in one conditional update, so two recoverers never settle the
// same request twice. The owner's own steps that matter (co-signed, broadcast) are conditional on
// still owning the row: an owner wrongly taken for dead stops before the network, never after.
import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database } from '../store';

/** This instance's name and the way to ask whether another one is still running. */
export interface GuardianInstance {
  id: string;
  /** Whether the instance of that id still runs (this one always does). */
  isAlive(id: string): Promise<boolean>;
}

/**
 * One process alone on its database (SQLite, or a test's guardian): every other id is a previous
 * run of this server, gone since.
 */
export function soleInstance(id = randomBytes(8).toString('hex')): GuardianInstance {
  return { id, isAlive: (other) => Promise.resolve(other === id) };
}

/** Records a received request as this instance's; false when the nonce was seen before. */
export async function recordOwnedRequest(
  db: Kysely<Database>,
  request: {
    nonce: string;
    method: string;
    vault_pubkey: string;
    expires_at: number;
  },
  instanceId: string,
  now: number,
): Promise<boolean> {
  const result = await db
    .insertInto('guardian_requests')
    .values({
      ...request,
      nonce: request.nonce.toLowerCase(),
      vault_id: null,
      state: 'received',
      instance_id: instanceId,
      created_at: now,
      updated_at: now,
    })
    .onConflict((oc) => oc.column('nonce').doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0n) === 1;
}

/**
 * Moves an owned request from one state to the next; false when it is no longer this instance's
 * (recovery took it over) or no longer in `from`.
 */
export async function advanceOwnedRequest(
  db: Kysely<Database>,
  nonce: string,
  instanceId: string,
  from: 'validated' | 'cosigned',
  to: 'cosigned' | 'broadcast',
  details: { txid: string; raw_hex?: string },
  now: number,
): Promise<boolean> {
  const result = await db
    .updateTable('guardian_requests')
    .set({ state: to, ...details, updated_at: now })
    .where('nonce', '=', nonce.toLowerCase())
    .where('instance_id', '=', instanceId)
    .where('state', '=', from)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/**
 * Takes over a request whose instance is gone (`previous` null: recorded before requests named
 * their instance). One conditional update: of two instances recovering at once, one wins.
 */
export async function takeOverRequest(
  db: Kysely<Database>,
  nonce: string,
  previous: string | null,
  instanceId: string,
  now: number,
): Promise<boolean> {
  const result = await db
    .updateTable('guardian_requests')
    .set({ instance_id: instanceId, updated_at: now })
    .where('nonce', '=', nonce)
    .where('state', 'in', ['received', 'validated', 'cosigned'])
    .where((eb) =>
      previous === null ? eb('instance_id', 'is', null) : eb('instance_id', '=', previous),
    )
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/**
 * Takes up again, as this instance's new attempt, a failed request sent once more (pipeline.ts
 * retryFailed): conditional on it being failed still, with the transaction it had (none, or one the
 * chain does not hold), so of two copies sent at once one wins.
 */
export async function retakeFailedRequest(
  db: Kysely<Database>,
  request: { nonce: string; method: string; vault_pubkey: string; expires_at: number },
  txid: string | null,
  instanceId: string,
  now: number,
): Promise<boolean> {
  const { nonce, ...fields } = request;
  const result = await db
    .updateTable('guardian_requests')
    .set({
      ...fields,
      state: 'received',
      instance_id: instanceId,
      vault_id: null,
      txid: null,
      raw_hex: null,
      effects: null,
      error: null,
      updated_at: now,
    })
    .where('nonce', '=', nonce.toLowerCase())
    .where('state', '=', 'failed')
    .where((eb) => (txid === null ? eb('txid', 'is', null) : eb('txid', '=', txid)))
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

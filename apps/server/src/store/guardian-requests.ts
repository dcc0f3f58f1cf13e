// Guardian requests by nonce: the nonce's uniqueness is what refuses a replayed request
// (docs/protocol.md, The state record).
import type { Insertable, Kysely, Selectable } from 'kysely';
import type { Database, GuardianRequestState, GuardianRequestsTable } from './schema';

export type GuardianRequestRow = Selectable<GuardianRequestsTable>;

export type NewGuardianRequest = Pick<
  Insertable<GuardianRequestsTable>,
  'nonce' | 'method' | 'vault_id' | 'vault_pubkey' | 'expires_at'
>;

/** Records a received request; false when the nonce was seen before (a replay). */
export async function recordGuardianRequest(
  db: Kysely<Database>,
  request: NewGuardianRequest,
  now = Math.floor(Date.now() / 1000),
): Promise<boolean> {
  const result = await db
    .insertInto('guardian_requests')
    .values({
      ...request,
      nonce: request.nonce.toLowerCase(),
      state: 'received',
      created_at: now,
      updated_at: now,
    })
    .onConflict((oc) => oc.column('nonce').doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0n) === 1;
}

export async function advanceGuardianRequest(
  db: Kysely<Database>,
  nonce: string,
  state: GuardianRequestState,
  details: { txid?: string; raw_hex?: string; error?: string | null; vault_id?: string } = {},
  now = Math.floor(Date.now() / 1000),
): Promise<void> {
  await db
    .updateTable('guardian_requests')
    .set({ state, ...details, updated_at: now })
    .where('nonce', '=', nonce.toLowerCase())
    .execute();
}

export async function getGuardianRequest(
  db: Kysely<Database>,
  nonce: string,
): Promise<GuardianRequestRow | null> {
  const row = await db
    .selectFrom('guardian_requests')
    .selectAll()
    .where('nonce', '=', nonce.toLowerCase())
    .executeTakeFirst();
  return row ?? null;
}

/** Requests still in flight for a vault: its UTXO is locked while one spends it. */
export async function openRequestsForVault(
  db: Kysely<Database>,
  vaultPubkey: string,
  now = Math.floor(Date.now() / 1000),
): Promise<GuardianRequestRow[]> {
  return db
    .selectFrom('guardian_requests')
    .selectAll()
    .where('vault_pubkey', '=', vaultPubkey)
    .where('state', 'in', ['received', 'validated', 'cosigned'])
    .where('expires_at', '>', now)
    .execute();
}

// The guardian's locks, in the database so that every server instance over one PostgreSQL (or one
// SQLite file) sees them: a vault's state changes only under its lock, which every request, the
// liquidation sweep and repossess take. Taking a lock is one conditional upsert, atomic on both
// dialects: the row is inserted, or taken over only once its holder's time has run out. Nobody
// waits for a lock: a busy one is refused at once ('vault_busy'), so a lock never deadlocks.
// Each lock names the instance that holds it, so once that instance is known to be gone (cluster
// presence) recovery frees it at once (recover.ts); the lease is the last resort for a holder of
// unknown fate (a lock of a server from before instance ids).
import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database } from '../store';

/**
 * How long a holder may keep a lock without renewing it. A request renews it just before it
 * broadcasts. A holder that crashed is freed by recovery as soon as its instance is known to be
 * gone; only a lock naming no instance waits this long.
 */
export const LOCK_SECONDS = 120;

/** What a vault request's own vault, or the sweep, locks. */
export const vaultLock = (vaultPubkey: string) => `vault:${vaultPubkey.toLowerCase()}`;
/** What repossess locks besides the claimant's vault: the liquidated vault being claimed. */
export const claimLock = (vaultId: string) => `claim:${vaultId.toLowerCase()}`;
/** A treasury output held by the request about to spend it. */
export const treasuryLock = (txid: string, vout: number) => `treasury:${txid}:${vout}`;

/**
 * A holder's name: unique per attempt, so a duplicate of a request (same nonce) never owns, and so
 * never frees, the locks of the original. `label` (a nonce) lets recovery find a request's locks.
 */
export function lockOwner(label: string): string {
  return `${label.toLowerCase()}:${randomBytes(8).toString('hex')}`;
}

/** Who takes a lock: the attempt (lockOwner) and the instance it runs in (cluster presence). */
export interface LockHolder {
  owner: string;
  instanceId: string;
}

async function acquireOne(
  db: Kysely<Database>,
  key: string,
  holder: LockHolder,
  now: number,
): Promise<boolean> {
  const row = {
    owner: holder.owner,
    instance_id: holder.instanceId,
    expires_at: now + LOCK_SECONDS,
  };
  const result = await db
    .insertInto('guardian_locks')
    .values({ lock_key: key, ...row })
    .onConflict((oc) =>
      oc.column('lock_key').doUpdateSet(row).where('guardian_locks.expires_at', '<=', now),
    )
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0n) === 1;
}

/** Takes every lock or none: true when `owner` now holds them all. */
export async function acquireLocks(
  db: Kysely<Database>,
  keys: readonly string[],
  holder: LockHolder,
  now: number,
): Promise<boolean> {
  const { owner } = holder;
  const taken: string[] = [];
  for (const key of keys) {
    if (!(await acquireOne(db, key, holder, now))) {
      // Frees what this call took, and nothing the owner held before it.
      if (taken.length > 0)
        await db
          .deleteFrom('guardian_locks')
          .where('lock_key', 'in', taken)
          .where('owner', '=', owner)
          .execute();
      return false;
    }
    taken.push(key);
  }
  return true;
}

/** Renews the owner's locks; false when any of them was lost (it expired and was taken). */
export async function renewLocks(
  db: Kysely<Database>,
  keys: readonly string[],
  owner: string,
  now: number,
): Promise<boolean> {
  if (keys.length === 0) return true;
  const result = await db
    .updateTable('guardian_locks')
    .set({ expires_at: now + LOCK_SECONDS })
    .where('lock_key', 'in', [...keys])
    .where('owner', '=', owner)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === keys.length;
}

/** Frees what `owner` holds, and nothing of anyone else. */
export async function releaseLocks(db: Kysely<Database>, owner: string): Promise<void> {
  await db.deleteFrom('guardian_locks').where('owner', '=', owner).execute();
}

/** Frees the locks of every attempt of a request, by its nonce (after a restart settled it). */
export async function releaseRequestLocks(db: Kysely<Database>, nonce: string): Promise<void> {
  await db
    .deleteFrom('guardian_locks')
    .where('owner', 'like', `${nonce.toLowerCase()}:%`)
    .execute();
}

/**
 * Hands the owner's locks to `instanceId` (a request whose broadcast went unanswered is handed to
 * recovery with its locks, settle.ts).
 */
export async function handOverLocks(
  db: Kysely<Database>,
  owner: string,
  instanceId: string,
): Promise<void> {
  await db
    .updateTable('guardian_locks')
    .set({ instance_id: instanceId })
    .where('owner', '=', owner)
    .execute();
}

/** The nonce (or label) a lock owner was named after (lockOwner). */
export const ownerLabel = (owner: string) => owner.slice(0, owner.lastIndexOf(':'));

/** Treasury outputs held by requests in flight right now, as `txid:vout`. */
export async function heldTreasuryOutputs(db: Kysely<Database>, now: number): Promise<Set<string>> {
  const rows = await db
    .selectFrom('guardian_locks')
    .select('lock_key')
    .where('lock_key', 'like', 'treasury:%')
    .where('expires_at', '>', now)
    .limit(1000)
    .execute();
  return new Set(rows.map((r) => r.lock_key.slice('treasury:'.length)));
}

// After a restart, or once another instance stopped: a request that was co-signed may or may not
// have reached the network before its process stopped. The chain decides: a transaction it knows
// gets its effects committed; one it does not know is broadcast once more from the stored raw hex.
// Requests that never reached co-signing cannot have been broadcast and are failed. A request whose
// broadcast went unanswered (settle.ts) is settled here the same way, round after round, until the
// chain answers or the bound has passed.
//
// Only requests whose instance is gone are touched (ownership.ts): a request another live instance
// is working on right now is its own. Each instance recovers once at start (its own previous run's
// requests, promptly: that run's instance is gone), and the leader of the 'guardian-recovery' job
// recovers periodically what instances that stopped while the others ran left behind. Then the
// locks of every instance that is gone are freed, whatever state their requests stopped in, and
// those of requests never stored: a vault is free again as soon as its holder is known to be gone.
import { advanceGuardianRequest } from '../store';
import type { GuardianContext } from './context';
import { applyEffects, changedVaultIds, type Effects } from './effects';
import { ownerLabel, releaseRequestLocks } from './locks';
import { takeOverRequest } from './ownership';
import { MAX_REQUEST_LIFETIME_SECONDS } from './pipeline';
import { findOrSend, HANDED_OFF, settleLate, UNANSWERED, UNANSWERED_BOUND_SECONDS } from './settle';
import { settleUnansweredReplacements } from './speedup-settle';

export const INTERRUPTED = 'interrupted by restart';

/** Most requests settled in one round; the next round takes the rest. */
const RECOVERY_BATCH = 500;

/**
 * A request without an instance id was written by a server of the version before instance ids,
 * which may still be running beside this one during a rolling upgrade: it is left to that server
 * until it is older than any request may live (pipeline.ts) plus a minute for its broadcast, and
 * only then settled as one whose server is gone.
 */
export const UNOWNED_REQUEST_GRACE_SECONDS = MAX_REQUEST_LIFETIME_SECONDS + 60;

export { UNANSWERED_BOUND_SECONDS } from './settle';

const OPEN_STATES = ['received', 'validated', 'cosigned'] as const;

export interface RecoveryReport {
  committed: string[];
  rebroadcast: string[];
  failed: string[];
}

export async function recoverRequests(g: GuardianContext): Promise<RecoveryReport> {
  const report: RecoveryReport = { committed: [], rebroadcast: [], failed: [] };
  const rows = await g.db
    .selectFrom('guardian_requests')
    .select([
      'nonce',
      'method',
      'vault_pubkey',
      'state',
      'txid',
      'raw_hex',
      'effects',
      'instance_id',
      'created_at',
      'expires_at',
    ])
    .where('state', 'in', [...OPEN_STATES])
    // This instance's own requests are in its hands: they never crowd a batch.
    .where((eb) => eb.or([eb('instance_id', 'is', null), eb('instance_id', '!=', g.instance.id)]))
    .orderBy('created_at')
    .limit(RECOVERY_BATCH)
    .execute();
  const alive = new Map<string, boolean>([[HANDED_OFF, false]]);
  for (const row of rows) {
    const owner = row.instance_id;
    if (owner !== null) {
      if (!alive.has(owner)) alive.set(owner, await g.instance.isAlive(owner));
      if (alive.get(owner)) continue;
    } else if (Number(row.created_at) > g.now() - UNOWNED_REQUEST_GRACE_SECONDS) {
      continue;
    }
    // Another recoverer may have been quicker.
    if (!(await takeOverRequest(g.db, row.nonce, owner, g.instance.id, g.now()))) continue;
    // Settled one way or the other: the locks the stopped instance held for it are free now.
    if (await settle(g, row, report)) await releaseRequestLocks(g.db, row.nonce);
  }
  // Failed because the network never answered, and on the chain after all.
  report.committed.push(...(await settleLate(g)));
  // Speed-ups whose answer was lost: the store follows whichever the chain holds.
  await settleUnansweredReplacements(g);
  await freeLocksOfGoneInstances(g, alive);
  return report;
}

/**
 * Frees every lock held by an instance that is gone, once no request of its lock is left in flight
 * (that one is settled first, above, and its locks freed with it): a request that stopped in any
 * other state, or whose lock was taken before its request was stored, holds the vault no longer.
 * Locks naming no instance (a server from before instance ids) wait for their lease.
 */
async function freeLocksOfGoneInstances(
  g: GuardianContext,
  alive: Map<string, boolean>,
): Promise<void> {
  const held = await g.db
    .selectFrom('guardian_locks')
    .select(['lock_key', 'owner', 'instance_id'])
    .where('instance_id', 'is not', null)
    .where('instance_id', '!=', g.instance.id)
    .where('instance_id', '!=', HANDED_OFF)
    .limit(RECOVERY_BATCH)
    .execute();
  for (const lock of held) {
    const instance = lock.instance_id!;
    if (!alive.has(instance)) alive.set(instance, await g.instance.isAlive(instance));
    if (alive.get(instance)) continue;
    const inFlight = await g.db
      .selectFrom('guardian_requests')
      .select('nonce')
      .where('nonce', '=', ownerLabel(lock.owner))
      .where('state', 'in', [...OPEN_STATES])
      .executeTakeFirst();
    if (inFlight) continue;
    // Conditional on the same holder: a lock taken again meanwhile is someone else's.
    await g.db
      .deleteFrom('guardian_locks')
      .where('lock_key', '=', lock.lock_key)
      .where('owner', '=', lock.owner)
      .where('instance_id', '=', instance)
      .execute();
    g.log.info({ lock: lock.lock_key, instance }, 'lock of a stopped instance freed');
  }
}

/** Settles one request taken over; false when the chain did not answer and it waits for the next round. */
async function settle(
  g: GuardianContext,
  row: {
    nonce: string;
    method: string;
    vault_pubkey: string;
    state: string;
    txid: string | null;
    raw_hex: string | null;
    effects: string | null;
    expires_at: number | bigint;
  },
  report: RecoveryReport,
): Promise<boolean> {
  const now = g.now();
  if (row.state !== 'cosigned' || !row.txid || !row.raw_hex || !row.effects) {
    await advanceGuardianRequest(g.db, row.nonce, 'failed', { error: INTERRUPTED }, now);
    report.failed.push(row.nonce);
    return true;
  }
  const txid = row.txid;
  // As the pipeline's broadcast lines: the action, the vault and the request, for tracing.
  const trace = { action: row.method, vault: row.vault_pubkey, request: row.nonce, txid };
  const sent = await findOrSend(g.chain, txid, row.raw_hex);
  if (sent.outcome === 'unknown') {
    if (now <= Number(row.expires_at) + UNANSWERED_BOUND_SECONDS) {
      // Handed back: the next round asks the chain again, the vault still locked.
      await g.db
        .updateTable('guardian_requests')
        .set({ instance_id: HANDED_OFF, error: sent.reason, updated_at: now })
        .where('nonce', '=', row.nonce)
        .where('instance_id', '=', g.instance.id)
        .where('state', '=', 'cosigned')
        .execute();
      g.log.warn({ ...trace, reason: sent.reason }, 'chain silent: settled later');
      return false;
    }
    g.log.warn({ ...trace, reason: sent.reason }, 'chain silent past the bound');
    sent.reason = `${UNANSWERED}: ${sent.reason}`;
  }
  if (sent.outcome === 'refused' || sent.outcome === 'unknown') {
    if (sent.outcome === 'refused')
      g.log.warn({ ...trace, reason: sent.reason }, 'rebroadcast refused');
    await advanceGuardianRequest(g.db, row.nonce, 'failed', { error: sent.reason }, now);
    report.failed.push(row.nonce);
    return true;
  }
  const effects = JSON.parse(row.effects) as Effects;
  await g.db.transaction().execute(async (trx) => {
    await applyEffects(trx, effects, txid, now);
    await advanceGuardianRequest(trx, row.nonce, 'broadcast', { txid, error: null }, now);
  });
  for (const id of changedVaultIds(effects, txid)) g.vaultChanged(id);
  if (sent.outcome === 'sent') report.rebroadcast.push(row.nonce);
  report.committed.push(row.nonce);
  g.log.info({ ...trace, rebroadcast: sent.outcome === 'sent' }, 'request recovered');
  return true;
}

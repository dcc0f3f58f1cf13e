// After a restart, or once another instance stopped: a request that was co-signed may or may not
// have reached the network before its process stopped. The chain decides: a transaction it knows
// gets its effects committed; one it does not know is broadcast once more from the stored raw hex.
// Requests that never reached co-signing cannot have been broadcast and are failed.
//
// Only requests whose instance is gone are touched (ownership.ts): a request another live instance
// is working on right now is its own. Each instance recovers once at start (its own previous run's
// requests, promptly: that run's instance is gone), and the leader of the 'guardian-recovery' job
// recovers periodically what instances that stopped while the others ran left behind.
import { BroadcastError } from '../chain/port';
import { advanceGuardianRequest } from '../store';
import type { GuardianContext } from './context';
import { applyEffects, guardianDb, type Effects } from './effects';
import { releaseRequestLocks } from './locks';
import { takeOverRequest } from './ownership';
import { MAX_REQUEST_LIFETIME_SECONDS } from './pipeline';

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

export interface RecoveryReport {
  committed: string[];
  rebroadcast: string[];
  failed: string[];
}

export async function recoverRequests(g: GuardianContext): Promise<RecoveryReport> {
  const report: RecoveryReport = { committed: [], rebroadcast: [], failed: [] };
  const rows = await guardianDb(g.db)
    .selectFrom('guardian_requests')
    .select(['nonce', 'state', 'txid', 'raw_hex', 'effects', 'instance_id', 'created_at'])
    .where('state', 'in', ['received', 'validated', 'cosigned'])
    // This instance's own requests are in its hands: they never crowd a batch.
    .where((eb) => eb.or([eb('instance_id', 'is', null), eb('instance_id', '!=', g.instance.id)]))
    .orderBy('created_at')
    .limit(RECOVERY_BATCH)
    .execute();
  const alive = new Map<string, boolean>();
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
    await settle(g, row, report);
    // Settled one way or the other: the locks the stopped instance held for it are free now.
    await releaseRequestLocks(g.db, row.nonce);
  }
  return report;
}
async function settle(
  g: GuardianContext,
  row: {
    nonce: string;
    state: string;
    txid: string | null;
    raw_hex: string | null;
    effects: string | null;
  },
  report: RecoveryReport,
): Promise<void> {
  const now = g.now();
  if (row.state !== 'cosigned' || !row.txid || !row.raw_hex || !row.effects) {
    await advanceGuardianRequest(g.db, row.nonce, 'failed', { error: INTERRUPTED }, now);
    report.failed.push(row.nonce);
    return;
  }
  const txid = row.txid;
  const known = (await g.chain.txStatus(txid)) !== null;
  if (!known) {
    try {
      await g.chain.broadcast(row.raw_hex);
      report.rebroadcast.push(row.nonce);
    } catch (error) {
      const reason = error instanceof BroadcastError ? error.message : String(error);
      g.log.warn({ nonce: row.nonce, txid, reason }, 'rebroadcast after restart refused');
      await advanceGuardianRequest(g.db, row.nonce, 'failed', { error: reason }, now);
      report.failed.push(row.nonce);
      return;
    }
  }
  const effects = JSON.parse(row.effects) as Effects;
  await g.db.transaction().execute(async (trx) => {
    await applyEffects(trx, effects, txid, now);
    await advanceGuardianRequest(trx, row.nonce, 'broadcast', { txid }, now);
  });
  report.committed.push(row.nonce);
  g.log.info({ nonce: row.nonce, txid, rebroadcast: !known }, 'request recovered');
}

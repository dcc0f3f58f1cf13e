// After a restart: a request that was co-signed may or may not have reached the network before the
// process stopped. The chain decides: a transaction it knows gets its effects committed; one it
// does not know is broadcast once more from the stored raw hex. Requests that never reached
// co-signing cannot have been broadcast and are failed.
import { BroadcastError } from '../chain/port';
import { advanceGuardianRequest } from '../store';
import type { GuardianContext } from './context';
import { applyEffects, guardianDb, type Effects } from './effects';
import { releaseRequestLocks } from './locks';

export const INTERRUPTED = 'interrupted by restart';

export interface RecoveryReport {
  committed: string[];
  rebroadcast: string[];
  failed: string[];
}

export async function recoverRequests(g: GuardianContext): Promise<RecoveryReport> {
  const report: RecoveryReport = { committed: [], rebroadcast: [], failed: [] };
  const rows = await guardianDb(g.db)
    .selectFrom('guardian_requests')
    .select(['nonce', 'state', 'txid', 'raw_hex', 'effects'])
    .where('state', 'in', ['received', 'validated', 'cosigned'])
    .execute();
  for (const row of rows) {
    await settle(g, row, report);
    // Settled one way or the other: the locks a stopped process held for it are free now.
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

// kill -9 of one guardian of the adversary world's 2-of-3 at one step of a vault request, for any
// flow: the steps are the guardian's own (while it decides, after its approval, between its
// commitment and its share, with its nonce spent), so one table of flows runs them all. What must
// hold: the request completes with the other two and its transaction is valid on the devnet; the
// guardian restarted is ready, its store holds no nonce still usable and none given twice; and it
// signs again (the next request, where it is one of the two left).
import { expect } from 'vitest';
import type { Approvals } from '@unit/protocol/wire';
import { call } from '../guardian/harness';
import { waitHealthy } from '../../../../packages/guardian-net/test/harness';
import {
  chainVerdict,
  lastApprovals,
  progressRecorder,
  type EvilMode,
  type World,
} from './adversary-harness';

export type KillStep =
  'while it decides' | 'after its approval' | 'after its commitment' | 'at its share';
export const KILL_STEPS: readonly KillStep[] = [
  'while it decides',
  'after its approval',
  'after its commitment',
  'at its share',
];

/** The fixture that dies at the step by itself; after its approval a real guardian is killed. */
const FIXTURE: Record<KillStep, EvilMode | null> = {
  'while it decides': 'crash-at-decision',
  'after its approval': null,
  'after its commitment': 'crash-after-commit',
  'at its share': 'crash-at-share',
};

export interface KillRun {
  approvals: Approvals;
  /** The request's nonce: its sessions are `<nonce>:<input>`. */
  nonce: string;
  vaultTxid: string;
}

/**
 * Sends `method` with `request` through the app while guardian `id` dies at `step`. Past its
 * decision it must be one of the two signers to die as one: `hold` is held (its link) until `id`
 * is gone, then let go to carry the retry.
 */
export async function sendWithKill(
  w: World,
  step: KillStep,
  ids: { id: number; hold: number },
  method: string,
  request: { nonce: string },
): Promise<KillRun> {
  const { id, hold } = ids;
  const fixture = FIXTURE[step];
  if (fixture) {
    await w.kill(id);
    // A liquidation is decided on the guardian's own price first: the fixture needs it fresh.
    await w.evil(id, fixture, method === 'vault.repossess');
  }
  const pausing = step !== 'while it decides';
  let held = pausing;
  const release = () => {
    if (held) w.resume(hold);
    held = false;
  };
  if (pausing) {
    w.pause(hold);
    if (fixture) void w.gone(id).then(release);
  }
  let killed = false;
  const ctx = progressRecorder((p) => {
    if (fixture || killed || p.approvals?.guardians[id - 1]?.state !== 'approved') return;
    killed = true;
    process.kill(w.pid(id), 'SIGKILL');
    release();
  });
  try {
    const { vault_txid } = await call<{ vault_txid: string }>(w.app.guardian, method, request, ctx);
    const raw = (await w.app.chain.txHex(vault_txid))!;
    expect((await chainVerdict(w.app, raw)).verdict).toEqual({ ok: true });
    return { approvals: lastApprovals(ctx)!, nonce: request.nonce, vaultTxid: vault_txid };
  } finally {
    release();
  }
}

const rowsOf = async (w: World, id: number, nonce: string) =>
  (await w.nonces(id)).filter((r) => r.session_id.startsWith(`${nonce}:`));

/** The request went through without `id`, which died at `step`; the other two signed it. */
export async function expectSignedWithout(
  w: World,
  step: KillStep,
  id: number,
  run: KillRun,
): Promise<void> {
  expect(w.exited(id)).toBe(true);
  const board = run.approvals.guardians;
  expect(['excluded', 'unreachable']).toContain(board[id - 1]!.state);
  expect(board[id - 1]!.reason).toMatch(
    step === 'while it decides'
      ? /^unreachable/
      : /^(unreachable|no commitment: |no signature share: )/,
  );
  for (const other of [1, 2, 3].filter((g) => g !== id)) {
    expect(board[other - 1]!.state).toBe('approved');
    expect((await rowsOf(w, other, run.nonce)).map((r) => r.status)).toContain('spent');
  }
}

/**
 * Guardian `id` started again (a real one, its own price fresh): ready, every nonce it had given
 * out before the kill now unusable (abandoned, or spent when it died at its share), none given twice.
 */
export async function expectRestarted(
  w: World,
  step: KillStep,
  id: number,
  nonce: string,
): Promise<void> {
  await w.kill(id);
  await w.honest(id);
  expect((await waitHealthy(w.set.members[id - 1]!)).state).toBe('ready');
  const all = await w.nonces(id);
  expect(all.filter((r) => r.status === 'issued')).toEqual([]);
  expect(new Set(all.map((r) => r.hiding)).size).toBe(all.length);
  const statuses = (await rowsOf(w, id, nonce)).map((r) => r.status);
  if (step === 'while it decides') expect(statuses).toEqual([]);
  if (step === 'after its commitment') {
    expect(statuses.length).toBeGreaterThan(0);
    expect(new Set(statuses)).toEqual(new Set(['abandoned']));
  }
  if (step === 'at its share') expect(statuses).toContain('spent');
}

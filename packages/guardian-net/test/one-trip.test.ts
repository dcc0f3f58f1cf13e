// One-round signing among real guardian processes (a 2-of-3 network on loopback, shares dealt in
// this process): the coordinator keeps a pool of each guardian's preprocessed commitments, so a
// borrow's two sessions are each decided and signed in one round trip, counted call by call. A
// guardian killed in the middle of a request costs one session, never the request; a guardian
// killed -9 after handing out commitments burns them all at its next start, and the pool's
// stale one makes that guardian sign by the two-round path once; a dry pool falls back to two.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import Database from 'better-sqlite3';
import { schnorr } from '@noble/curves/secp256k1.js';
import { randomBytes } from '@noble/hashes/utils.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bytesToHex, hexToBytes } from '../src/canonical';
import { Coordinator, type SignEvent, type SignOptions } from '../src/coordinator';
import type { GuardianSet } from '../src/guardian-set';
import { newIdentity } from '../src/identity';
import type { MessageType } from '../src/messages';
import { dealSetAt } from './dealt-at';
import { writeGuardianDir } from './guardian-dir';
import {
  CLI,
  freePorts,
  kill9,
  run,
  waitHealthy,
  type Proc,
  plainLinksInThisFile,
} from './harness';

plainLinksInThisFile();

const N = 3;
const T = 2;
const dir = mkdtempSync(join(tmpdir(), 'guardian-one-trip-'));
const coordinatorId = newIdentity();
const procs = new Map<number, Proc>();
let set: GuardianSet;
let coordinator: Coordinator;
const gdir = (id: number) => join(dir, `g${id}`);

async function start(id: number): Promise<void> {
  const m = set.members[id - 1]!;
  const args = ['start', '--id', String(id), '--dir', gdir(id), '--port', new URL(m.url).port];
  procs.set(id, run(CLI, [...args, '--policy', 'approve-all']));
  await waitHealthy(m.url, 90_000);
}

async function stop(id: number): Promise<void> {
  const p = procs.get(id);
  procs.delete(id);
  if (!p) return;
  p.child.kill('SIGCONT');
  await kill9(p);
}

function nonceRows(
  id: number,
  where: string,
): { session_id: string; hiding: string; status: string }[] {
  const db = new Database(join(gdir(id), 'store.sqlite'), { readonly: true, fileMustExist: true });
  try {
    return db.prepare(`SELECT * FROM nonces WHERE ${where}`).all() as never;
  } finally {
    db.close();
  }
}
const preprocessedRows = (id: number) => nonceRows(id, `session_id LIKE 'pre:%'`);

/** Signs `message` and counts each call it makes, by guardian and type. */
async function counted(
  c: Coordinator,
  message: Uint8Array,
  sessionId: string,
  extra: Partial<SignOptions> = {},
  onEvent?: (e: SignEvent) => void | Promise<void>,
) {
  const calls: { guardian: number; type: MessageType }[] = [];
  const result = await c.sign(message, { kind: 'borrow' }, onEvent, {
    sessionId,
    onCall: (guardian, type) => calls.push({ guardian, type }),
    ...extra,
  });
  expect(schnorr.verify(result.signature, message, hexToBytes(set.groupKey!))).toBe(true);
  return { result, calls };
}

const types = (calls: { type: MessageType }[]) => calls.map((c) => c.type).sort();
const requestNonce = () => bytesToHex(randomBytes(16));

beforeAll(async () => {
  const base = await freePorts(N);
  const urls = Array.from({ length: N }, (_, i) => `http://127.0.0.1:${base + i}`);
  const dealt = dealSetAt(urls, T, coordinatorId);
  set = dealt.set;
  for (let id = 1; id <= N; id++) writeGuardianDir(gdir(id), id, [dealt]);
  await Promise.all([1, 2, 3].map(start));
  coordinator = new Coordinator(set, coordinatorId, 10_000, { preprocess: { target: 8 } });
  await coordinator.pool!.fill();
}, 120_000);

afterAll(async () => {
  coordinator?.close();
  await Promise.all([...procs.keys()].map(stop));
  rmSync(dir, { recursive: true, force: true });
});

describe('one-round signing over preprocessed commitments', () => {
  it('signs a borrow’s two inputs in one round trip: one sign/once per signer per session, nothing else', async () => {
    const nonce = requestNonce();
    const [vault, treasury] = await Promise.all(
      [0, 1].map((input) => counted(coordinator, randomBytes(32), `${nonce}:${input}`)),
    );
    for (const { result, calls } of [vault!, treasury!]) {
      expect(result.attempts).toBe(1);
      expect(result.excluded).toEqual([]);
      // One round trip: t calls, all sent at once when the session starts, one per signer.
      expect(types(calls)).toEqual(['sign/once', 'sign/once']);
      expect(calls.map((c) => c.guardian).sort()).toEqual(result.signers);
      expect([...result.decisions].sort((a, b) => a.guardian - b.guardian)).toEqual(
        result.signers.map((guardian) => ({ guardian, approved: true, reason: null })),
      );
    }
  });

  it('a guardian killed in the middle of a request: the other two sign it in a new session, one round trip each', async () => {
    let killed = 0;
    let firstSession: number[] = [];
    try {
      await killedMidRequest();
    } finally {
      // Started again whatever failed above, so that the next test (or this one's retry) has three.
      if (killed && !procs.has(killed)) await start(killed);
      await coordinator.pool!.fill();
    }

    async function killedMidRequest() {
      const { result, calls } = await counted(
        coordinator,
        randomBytes(32),
        `${requestNonce()}:0`,
        {},
        async (e) => {
          if (e.kind !== 'committed' || killed !== 0) return;
          firstSession = [...e.signers];
          killed = e.signers[0]!;
          // Stopped with the request on its socket, then killed: its answer never comes.
          const p = procs.get(killed)!;
          procs.delete(killed);
          p.child.kill('SIGSTOP');
          setTimeout(() => void kill9(p), 100);
        },
      );
      expect(killed).toBeGreaterThan(0);
      expect(result.signers).not.toContain(killed);
      expect(result.signers).toHaveLength(2);
      expect(result.attempts).toBe(2);
      // Named as stalled when the other session signed first, else as unreachable once it died.
      expect(result.excluded).toHaveLength(1);
      expect(result.excluded[0]!.guardian).toBe(killed);
      expect(['stalled', 'unreachable']).toContain(result.excluded[0]!.cause);
      // Both sessions were one round: every share came by `sign/once` over a preprocessed
      // commitment, two per session, never by the two-round path (no commit or share call).
      expect(calls.filter((c) => c.type === 'sign/once')).toHaveLength(4);
      // When the killed guardian's link fails before its partner's share is in, no session can
      // start yet, and the guardian not asked is asked for its decision alone (roast.ts `blocked`):
      // at most that one call, never to a member of the first session.
      const others = calls.filter((c) => c.type !== 'sign/once');
      expect(others.length).toBeLessThanOrEqual(1);
      for (const c of others) {
        expect(c.type).toBe('sign/propose');
        expect(firstSession).not.toContain(c.guardian);
      }
    }
  });

  it('kill -9 after handing out commitments: they are burned at the next start, and the stale one costs a round trip, not the request', async () => {
    await coordinator.pool!.fill();
    const before = preprocessedRows(1).filter((r) => r.status === 'issued');
    const handedOut = before.length;
    expect(handedOut).toBeGreaterThan(0);
    await stop(1);
    await start(1);
    const rows = preprocessedRows(1);
    expect(rows.filter((r) => r.status === 'issued')).toEqual([]);
    expect(rows.filter((r) => r.status === 'abandoned').length).toBeGreaterThanOrEqual(handedOut);
    // The pool still holds guardian 1's burned commitments: the guardian refuses the one chosen,
    // the pool forgets them all, and guardian 1 is asked by the two-round path (it joins the
    // next session unless the other two are ready first). Nobody is excluded for it.
    const { result, calls } = await counted(coordinator, randomBytes(32), `${requestNonce()}:0`, {
      prefer: [1, 2],
    });
    expect(result.attempts).toBe(2);
    expect(result.excluded).toEqual([]);
    const asked = calls.filter((c) => c.guardian === 1).map((c) => c.type);
    expect(asked.slice(0, 2)).toEqual(['sign/once', 'sign/propose']);
    expect(asked.slice(2)).toEqual(result.signers.includes(1) ? ['sign/share'] : []);
    // Refilled with the new epoch: the next request is one round trip again.
    await coordinator.pool!.fill();
    const next = await counted(coordinator, randomBytes(32), `${requestNonce()}:0`, { prefer: [1, 2] }); // prettier-ignore
    // (Under load a member may pass its patience: a second session, one round trip again.)
    expect(new Set(types(next.calls))).toEqual(new Set(['sign/once']));
    expect(next.calls.filter((c) => c.guardian === 1).length).toBeGreaterThan(0);
    // Not one commitment handed out before the kill signed anything since: each row is still
    // abandoned, under its own `pre:` id, and none of their hiding nonces is on another row.
    const hidings = before.map((r) => `'${r.hiding}'`).join(',');
    const after = nonceRows(1, `hiding IN (${hidings})`);
    expect(after).toHaveLength(handedOut);
    for (const r of after) expect([r.session_id.startsWith('pre:'), r.status]).toEqual([true, 'abandoned']); // prettier-ignore
  });

  it('a dry pool falls back to the two-round path', async () => {
    // A coordinator whose pool is empty when the request comes (its first refill is under way).
    const fresh = new Coordinator(set, coordinatorId, 10_000, { preprocess: { target: 2 } });
    try {
      const { result, calls } = await counted(fresh, randomBytes(32), `${requestNonce()}:0`);
      expect(result.attempts).toBe(1);
      expect(types(calls)).toEqual([
        'sign/propose',
        'sign/propose',
        'sign/propose',
        'sign/share',
        'sign/share',
      ]);
    } finally {
      fresh.close();
    }
  });
});

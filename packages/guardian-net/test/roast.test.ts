// Robust signing among real guardian processes: a 3-of-5 network (shares dealt in this process,
// each guardian a process of its own on loopback) where members stall (SIGSTOP), send bad shares
// (the evil fixture: a real share, a corrupted answer) or refuse (`--policy refuse-all`). Each
// request completes while t members answer, within n - t + 1 sessions, without waiting for a
// stalled member's time-out, and names each exclusion with its cause.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { schnorr } from '@noble/curves/secp256k1.js';
import { randomBytes } from '@noble/hashes/utils.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { hexToBytes } from '../src/canonical';
import { Coordinator, QuorumError, type Exclusion, type SignEvent } from '../src/coordinator';
import type { GuardianSet } from '../src/guardian-set';
import { newIdentity } from '../src/identity';
import { MAX_ATTEMPT } from '../src/signing-rounds';
import { callParty, RemoteError } from '../src/transport';
import { dealSetAt } from './dealt-at';
import { writeGuardianDir } from './guardian-dir';
import { CLI, EVIL, freePorts, kill9, run, waitHealthy, type Proc } from './harness';

const N = 5;
const T = 3;
const dir = mkdtempSync(join(tmpdir(), 'guardian-roast-'));
const coordinatorId = newIdentity();
const procs = new Map<number, Proc>();
let set: GuardianSet;
/** Generous per-call time-out: a request that waited for a stalled member would show it. */
const CALL_TIMEOUT_MS = 10_000;
let coordinator: Coordinator;

async function start(id: number, how: 'approve-all' | 'refuse-all' | 'bad-share'): Promise<void> {
  const m = set.members[id - 1]!;
  const port = new URL(m.url).port;
  const p =
    how === 'bad-share'
      ? run(EVIL, ['--id', String(id), '--dir', join(dir, `g${id}`), '--port', port])
      : run(CLI, [
          'start',
          '--id',
          String(id),
          '--dir',
          join(dir, `g${id}`),
          '--port',
          port,
          '--policy',
          how,
        ]);
  procs.set(id, p);
  await waitHealthy(m.url, 90_000);
}

async function stop(id: number): Promise<void> {
  const p = procs.get(id);
  procs.delete(id);
  if (!p) return;
  p.child.kill('SIGCONT');
  await kill9(p);
}

const pause = (id: number) => procs.get(id)!.child.kill('SIGSTOP');
const resume = (id: number) => procs.get(id)?.child.kill('SIGCONT');

beforeAll(async () => {
  const base = await freePorts(N);
  const urls = Array.from({ length: N }, (_, i) => `https://127.0.0.1:${base + i}`);
  const dealt = dealSetAt(urls, T, coordinatorId);
  set = dealt.set;
  for (let id = 1; id <= N; id++) writeGuardianDir(join(dir, `g${id}`), id, [dealt]);
  coordinator = new Coordinator(set, coordinatorId, CALL_TIMEOUT_MS);
  // Guardian 2 always sends bad shares; the others are honest until a test says otherwise.
  await Promise.all([1, 2, 3, 4, 5].map((id) => start(id, id === 2 ? 'bad-share' : 'approve-all')));
}, 120_000);

afterAll(async () => {
  await Promise.all([...procs.keys()].map(stop));
  rmSync(dir, { recursive: true, force: true });
});

const causes = (xs: Exclusion[]) =>
  Object.fromEntries(xs.map((x) => [x.guardian, x.cause] as const));

describe('ROAST among 3-of-5 guardian processes', () => {
  it('a member that stalls mid-session and one that sends a bad share cost a session each, not the request', async () => {
    const msg = randomBytes(32);
    const events: SignEvent[] = [];
    let froze = false;
    const started = Date.now();
    const result = await coordinator.sign(
      msg,
      {},
      (e) => {
        events.push(e);
        // Guardian 1 freezes once its first session has started, before its share is asked.
        if (e.kind === 'committed' && !froze && e.signers.includes(1)) {
          froze = true;
          pause(1);
        }
      },
      { waitForAll: true, prefer: [1, 2] },
    );
    const elapsed = Date.now() - started;
    resume(1);
    expect(froze).toBe(true);
    expect(schnorr.verify(result.signature, msg, hexToBytes(set.groupKey!))).toBe(true);
    expect(result.signers).not.toContain(1);
    expect(result.signers).not.toContain(2);
    expect(causes(result.excluded)).toEqual({ 1: 'stalled', 2: 'bad-share' });
    expect(result.attempts).toBeGreaterThanOrEqual(2);
    expect(result.attempts).toBeLessThanOrEqual(N - T + 1);
    // Never the stalled member's time-out: a new session started as soon as it stalled.
    expect(elapsed).toBeLessThan(CALL_TIMEOUT_MS / 2);
    const sessions = events.filter((e) => e.kind === 'committed');
    expect(sessions[0]).toMatchObject({ signers: expect.arrayContaining([1, 2]) });
  });

  it('requests at once with a frozen member: none waits for it or queues behind another', async () => {
    pause(1);
    try {
      const started = Date.now();
      const results = await Promise.all(
        Array.from({ length: 6 }, () => coordinator.sign(randomBytes(32), {})),
      );
      const elapsed = Date.now() - started;
      for (const r of results) {
        expect(r.signers).not.toContain(1);
        expect(r.attempts).toBeLessThanOrEqual(N - T + 1);
        for (const x of r.excluded) expect(x).toMatchObject({ guardian: 2, cause: 'bad-share' });
      }
      expect(elapsed).toBeLessThan(CALL_TIMEOUT_MS / 2);
    } finally {
      resume(1);
    }
  });

  it('a refusing member and a bad share: named refused and bad share, the other three sign', async () => {
    await stop(3);
    await start(3, 'refuse-all');
    const msg = randomBytes(32);
    const late: Exclusion[] = [];
    const result = await coordinator.sign(msg, {}, undefined, {
      waitForAll: true,
      prefer: [2],
      onExclusion: (x) => late.push(x),
    });
    expect(schnorr.verify(result.signature, msg, hexToBytes(set.groupKey!))).toBe(true);
    expect(result.signers).toEqual([1, 4, 5]);
    expect(causes(result.excluded)).toEqual({ 2: 'bad-share', 3: 'refused' });
    expect(result.excluded.find((x) => x.guardian === 3)?.reason).toMatch(/refuses every request/);
    expect(result.attempts).toBe(2);
    expect(causes(late)).toEqual(causes(result.excluded));
  });

  it('refuses an attempt number out of range or not an integer, and takes the highest', async () => {
    const m = set.members[3]!;
    const ask = (attempt: unknown) =>
      callParty({
        url: m.url,
        identity: coordinatorId,
        to: m.identityKey,
        setVersion: set.version,
        type: 'sign/commit',
        body: { sessionId: 'cd'.repeat(32), attempt },
        auth: 'mac',
      }).catch((e: unknown) => e as RemoteError);
    for (const bad of [-1, 1.5, MAX_ATTEMPT + 1, '3', 2 ** 53])
      expect(await ask(bad), String(bad)).toMatchObject({ code: 'malformed' });
    // In range, for a session it never approved: refused as unknown, no nonce issued.
    expect(await ask(MAX_ATTEMPT)).toMatchObject({ code: 'unknown-session' });
  });

  it('with more than n - t adversaries nothing is signed, within n - t + 1 sessions, each named', async () => {
    const quick = new Coordinator(set, coordinatorId, 1_500);
    pause(1);
    try {
      const attempt = await quick
        .sign(randomBytes(32), {}, undefined, { prefer: [2] })
        .catch((e: unknown) => e);
      expect(attempt).toBeInstanceOf(QuorumError);
      const err = attempt as QuorumError;
      expect(causes(err.excluded)).toEqual({ 1: 'stalled', 2: 'bad-share', 3: 'refused' });
      expect(err.message).toMatch(/fewer than 3 of 5 guardians approved and signed/);
      expect(err.message).toMatch(/guardian 3: this guardian refuses every request/);
    } finally {
      resume(1);
    }
  });
});

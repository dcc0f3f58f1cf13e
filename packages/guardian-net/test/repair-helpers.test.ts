// A repair's helpers are chosen among the members that answer, among real processes on loopback:
// a 2-of-4 network from the CLI's DKG; guardian 4 loses its disk. With guardian 1 down, `guardian
// repair --member 4` picks guardians 2 and 3 (not the first two members), and guardian 1, started
// again, installs the new set with its own share later (`repair --install 1`). Then a helper that
// stops answering once chosen (SIGSTOP) is left out after the time-out, and the repair runs again
// with another responsive member.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { schnorr } from '@noble/curves/secp256k1.js';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bytesToHex, hexToBytes } from '../src/canonical';
import { approveRoster } from '../src/approve';
import { Coordinator } from '../src/coordinator';
import { readShareFile } from '../src/frost';
import { verifySet, type GuardianSet } from '../src/guardian-set';
import { loadIdentity, newIdentity, type Identity } from '../src/identity';
import { sealMessage } from '../src/envelope';
import { RemoteError } from '../src/transport';
import { PartyRun } from '../src/party-run';
import { repairRoster } from '../src/repair-roster';
import { runRepair } from '../src/repair-run';
import {
  allOutput,
  CLI,
  freePorts,
  kill9,
  run,
  waitHealthy,
  type Proc,
  plainLinksInThisFile,
} from './harness';

plainLinksInThisFile();

const dir = mkdtempSync(join(tmpdir(), 'guardian-repair-helpers-'));
const g = (id: number) => join(dir, `guardian-${id}`);
let set1: GuardianSet;
let coordinatorId: Identity;
const procs = new Map<number, Proc>();
const lostShare = () => bytesToHex(readShareFile(join(g(4), 'share.json')).secret.signingShare);

const cli = async (args: string[], code: number) => {
  const p = run(CLI, args);
  expect(await p.exited, p.output()).toBe(code);
  return p.output();
};
const url = (id: number) => set1.members[id - 1]!.url;
const codeOf = (p: Promise<unknown>) =>
  p.then(
    () => 'accepted',
    (e: unknown) => (e instanceof RemoteError ? `${e.code}: ${e.message}` : String(e)),
  );

async function start(id: number, args: string[] = ['--id', String(id)]): Promise<void> {
  procs.set(id, run(CLI, ['start', ...args, '--dir', g(id), '--policy', 'approve-all']));
  await waitHealthy(url(id));
}

const stop = async (id: number) => {
  const p = procs.get(id);
  if (p && p.child.exitCode === null) await kill9(p);
};

/** Guardian 4 loses everything but its identity key and public part, and starts again waiting. */
async function loseDisk(): Promise<string> {
  const share = lostShare();
  await stop(4);
  const backup = join(dir, `backup-${Date.now()}`);
  mkdirSync(backup);
  for (const f of ['identity.json', 'guardian.json']) copyFileSync(join(g(4), f), join(backup, f));
  rmSync(g(4), { recursive: true });
  mkdirSync(g(4), { mode: 0o700 });
  for (const f of ['identity.json', 'guardian.json']) copyFileSync(join(backup, f), join(g(4), f));
  await start(4, []);
  expect(await waitHealthy(url(4))).toMatchObject({ state: 'waiting', sets: [] });
  return share;
}

async function signers(set: GuardianSet, b: number, prefer: number[]): Promise<number[]> {
  const msg = new Uint8Array(32).fill(b);
  const signed = await new Coordinator(set, coordinatorId, 10_000).sign(msg, { kind: 'manual' }, undefined, { prefer }); // prettier-ignore
  expect(schnorr.verify(signed.signature, msg, hexToBytes(set1.groupKey!))).toBe(true);
  return signed.signers;
}

/** A signature of `set` by the members `ids` alone: every other running member frozen meanwhile. */
async function onlySign(set: GuardianSet, b: number, ids: number[]): Promise<number[]> {
  const others = [...procs.entries()].filter(([id, p]) => !ids.includes(id) && p.child.exitCode === null); // prettier-ignore
  for (const [, p] of others) p.child.kill('SIGSTOP');
  try {
    return await signers(set, b, ids);
  } finally {
    for (const [id, p] of others) if (!(id === 1 && frozen1)) p.child.kill('SIGCONT');
  }
}
let frozen1 = false;

beforeAll(async () => {
  const base = await freePorts(4);
  await cli(['dkg', '--dir', dir, '--n', '4', '--t', '2', '--base-port', String(base)], 0);
  set1 = verifySet(JSON.parse(readFileSync(join(dir, 'guardian-set.json'), 'utf8')));
  coordinatorId = loadIdentity(join(dir, 'coordinator', 'identity.json'));
  for (const m of set1.members) await start(m.id);
}, 120_000);

afterAll(async () => {
  for (const p of procs.values()) p.child.kill('SIGCONT');
  await Promise.all([...procs.keys()].map(stop));
  rmSync(dir, { recursive: true, force: true });
});

describe('a repair helped by the members that answer', () => {
  it('with guardian 1 down, guardians 2 and 3 help; guardian 1 installs the set later with its own share', async () => {
    const share = await loseDisk();
    await stop(1);
    const rosterPath = join(dir, 'repair-v2-guardian-4.json');
    await cli(['repair', '--dir', dir, '--member', '4'], 1);
    for (const id of [1, 2, 3])
      await cli(['approve', '--kind', 'repair', '--dir', g(id), '--roster', rosterPath, '--yes'], 0); // prettier-ignore
    const out = await cli(['repair', '--dir', dir, '--member', '4', '--timeout', '8000'], 0);
    expect(out).toMatch(/"event":"repair-responsive","members":\[2,3\],"silent":\["guardian 1: unreachable/); // prettier-ignore
    expect(out).toMatch(/"event":"repair-installed",.*"helpers":\[2,3\],"missed":\[1\]/);
    const set2 = verifySet(JSON.parse(readFileSync(join(dir, 'guardian-set.json'), 'utf8')), { previous: set1 }); // prettier-ignore
    expect(set2.groupKey).toBe(set1.groupKey);
    expect(lostShare()).toBe(share);
    expect(allOutput.some((line) => line.includes(share))).toBe(false);
    for (const id of [2, 3, 4]) expect(await waitHealthy(url(id))).toMatchObject({ sets: [2] });

    // Guardian 1 comes back on set 1, then takes set 2 with the share it kept.
    await start(1);
    expect(await waitHealthy(url(1))).toMatchObject({ sets: [1] });
    // What it refuses before that, changing nothing: a stranger, another set version, a set
    // without its handover, the set while its operator's approval is away, and a replay.
    const member1 = set1.members[0]!;
    const install = (identity: Identity, set: unknown, current = set1) =>
      codeOf(new PartyRun('repair', current, identity, 5_000).call(member1, 'repair/install', { set: set as never })); // prettier-ignore
    expect(await install(newIdentity(), set2)).toMatch(/^sender-not-in-set: /);
    expect(await install(coordinatorId, set2, set2)).toMatch(/^refused: guardian set version 1 expected/); // prettier-ignore
    const { handover: _h, ...unhanded } = set2;
    expect(await install(coordinatorId, unhanded)).toMatch(/^refused: the next set does not verify: /); // prettier-ignore
    renameSync(join(g(1), 'approvals'), join(dir, 'approvals-1'));
    expect(await install(coordinatorId, set2)).toMatch(/^refused: not approved: this guardian’s operator has not approved the repair to set 2/); // prettier-ignore
    renameSync(join(dir, 'approvals-1'), join(g(1), 'approvals'));
    const wire = JSON.stringify(sealMessage({ type: 'repair/install', from: coordinatorId.publicKey, to: member1.identityKey, setVersion: 1, body: { session: 'ab'.repeat(16), set: unhanded } as never }, coordinatorId.secretKey)); // prettier-ignore
    const post = async () => (await fetch(`${member1.url}/v1/message`, { method: 'POST', body: wire, headers: { 'content-type': 'application/json' } })).status; // prettier-ignore
    expect([await post(), await post()]).toEqual([400, 409]);
    expect(await waitHealthy(url(1))).toMatchObject({ sets: [1] });
    await cli(['repair', '--dir', dir, '--install', '1'], 0);
    expect(await waitHealthy(url(1))).toMatchObject({ sets: [2] });
    expect(readShareFile(join(g(1), 'share-v2.json')).secret.signingShare).toEqual(
      readShareFile(join(g(1), 'share.json')).secret.signingShare,
    );
    expect((await onlySign(set2, 1, [1, 4])).sort()).toEqual([1, 4]);
  }, 180_000);

  it('a helper that stops answering once chosen is replaced by another responsive member', async () => {
    const set2 = verifySet(JSON.parse(readFileSync(join(dir, 'guardian-set.json'), 'utf8')));
    const share = await loseDisk();
    const roster = repairRoster(set2, 4);
    for (const id of [1, 2, 3]) approveRoster(g(id), roster, true, 'repair');
    const events: Record<string, unknown>[] = [];
    const sessions: number[][] = [];
    const onSession = (helpers: number[]) => {
      sessions.push(helpers);
      // The first helper chosen freezes with its connections open, after it answered its health.
      if (sessions.length === 1) {
        procs.get(helpers[0]!)!.child.kill('SIGSTOP');
        frozen1 = helpers[0] === 1;
      }
    };
    const options = { timeoutMs: 6_000, probeMs: 2_000, log: (e: Record<string, unknown>) => events.push(e), onSession }; // prettier-ignore
    const set3 = await runRepair(set2, roster, 4, coordinatorId, options);
    expect(sessions).toEqual([[1, 2], [2, 3]]); // prettier-ignore
    expect(events.find((e) => e.event === 'repair-retry')).toMatchObject({ leftOut: [1], reason: expect.stringMatching(/guardian 1 \(guardian-1\): timed out/) }); // prettier-ignore
    expect(events.find((e) => e.event === 'repair-installed')).toMatchObject({ helpers: [2, 3], missed: [1] }); // prettier-ignore
    expect(set3!.groupKey).toBe(set1.groupKey);
    expect(lostShare()).toBe(share);
    for (const id of [2, 3, 4]) expect(await waitHealthy(url(id))).toMatchObject({ sets: [3] });
    // Guardian 1 is still frozen: with guardian 3 frozen too, guardian 2 and the repaired 4 sign.
    expect((await onlySign(set3!, 2, [2, 4])).sort()).toEqual([2, 4]);

    // Guardian 1, frozen through the repair, restarted: still on set 2, it takes set 3 when the
    // install is sent again, with the share it kept.
    await stop(1);
    frozen1 = false;
    await start(1);
    expect(await waitHealthy(url(1))).toMatchObject({ sets: [2] });
    await new PartyRun('repair', set2, coordinatorId, 10_000).call(set2.members[0]!, 'repair/install', { set: set3 as never }); // prettier-ignore
    expect(await waitHealthy(url(1))).toMatchObject({ sets: [3] });
    expect((await onlySign(set3!, 3, [1, 3])).sort()).toEqual([1, 3]);
  }, 180_000);
});

// Repair among real processes on loopback: a 2-of-3 network made by the CLI's DKG; guardian 3
// loses its disk and starts again with only its identity key and public part restored from its
// backup; `guardian repair --member 3` rebuilds its share from guardians 1 and 2 once their
// operators approved the roster as a repair, without the share leaving guardian 3 in clear. The
// group key stays and guardian 3 signs again. Refused: an unapproved repair, strangers, forged and
// replayed pieces, and a helper's bad sum (named); then a guardian that lost its identity key too
// is repaired into its seat with a new one made by `guardian init`.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { schnorr } from '@noble/curves/secp256k1.js';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'; // prettier-ignore
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { hexToBytes } from '../src/canonical';
import type { MessageType } from '../src/messages';
import { Coordinator } from '../src/coordinator';
import { readShareFile } from '../src/frost';
import { parseSetBody, verifySet, type GuardianSet } from '../src/guardian-set';
import { loadIdentity, newIdentity, type Identity } from '../src/identity';
import { RepairHelper } from '../src/repair-rounds';
import { runRepair } from '../src/repair-run';
import { callParty, RemoteError } from '../src/transport';
import { allOutput, CLI, EVIL, freePorts, kill9, run, waitHealthy, type Proc } from './harness';

const dir = mkdtempSync(join(tmpdir(), 'guardian-repair-'));
const g = (id: number) => join(dir, `guardian-${id}`);
const backup = join(dir, 'backup-3');
let set1: GuardianSet;
let coordinatorId: Identity;
let lostShare = '';
const procs = new Map<string, Proc>();

async function start(key: string, script: string, args: string[], url: string): Promise<void> {
  const p = run(script, script === CLI ? ['start', ...args, '--policy', 'approve-all'] : args);
  procs.set(key, p);
  await waitHealthy(url);
}

const stop = async (key: string) => {
  const p = procs.get(key);
  if (p && p.child.exitCode === null) await kill9(p);
};

const codeOf = (p: Promise<unknown>) =>
  p.then(
    () => 'accepted',
    (e: unknown) => (e instanceof RemoteError ? `${e.code}: ${e.message}` : String(e)),
  );

const message = (b: number) => new Uint8Array(32).fill(b);

async function signs(set: GuardianSet, b: number, prefer?: number[]) {
  const c = new Coordinator(set, coordinatorId, 10_000);
  const signed = await c.sign(message(b), { kind: 'manual' }, undefined, prefer ? { prefer } : {});
  expect(schnorr.verify(signed.signature, message(b), hexToBytes(set1.groupKey!))).toBe(true);
  return signed.signers;
}

const url = (id: number) => set1.members[id - 1]!.url;
const cli = async (args: string[], code: number) => {
  const p = run(CLI, args);
  expect(await p.exited, p.output()).toBe(code);
  return p.output();
};
const rosterPath = (v: number) => join(dir, `repair-v${v}-guardian-3.json`);
const approve = (id: number, v: number, kind = 'repair') =>
  cli(['approve', '--kind', kind, '--dir', g(id), '--roster', rosterPath(v), '--yes'], 0);

beforeAll(async () => {
  const basePort = await freePorts(3);
  await cli(['dkg', '--dir', dir, '--n', '3', '--t', '2', '--base-port', String(basePort)], 0);
  set1 = verifySet(JSON.parse(readFileSync(join(dir, 'guardian-set.json'), 'utf8')));
  coordinatorId = loadIdentity(join(dir, 'coordinator', 'identity.json'));
  await Promise.all(
    set1.members.map((m) => start(`g${m.id}`, CLI, ['--id', String(m.id), '--dir', g(m.id)], m.url)), // prettier-ignore
  );
}, 120_000);

afterAll(async () => {
  await Promise.all([...procs.keys()].map(stop));
  rmSync(dir, { recursive: true, force: true });
});

describe('a guardian that lost its disk gets its share back with the same group key', () => {
  it('waits with only its identity restored; the repair is refused until the operators approve it as a repair', async () => {
    lostShare = Buffer.from(readShareFile(join(g(3), 'share.json')).secret.signingShare).toString('hex'); // prettier-ignore
    await stop('g3');
    // The operator's backup: its identity key and its public part, nothing else.
    mkdirSync(backup);
    for (const f of ['identity.json', 'guardian.json'])
      copyFileSync(join(g(3), f), join(backup, f));
    rmSync(g(3), { recursive: true });
    mkdirSync(g(3), { mode: 0o700 });
    for (const f of ['identity.json', 'guardian.json'])
      copyFileSync(join(backup, f), join(g(3), f));
    await start('g3', CLI, ['--dir', g(3)], url(3));
    expect(await waitHealthy(url(3))).toMatchObject({ state: 'waiting', sets: [] });

    const refused = await cli(['repair', '--dir', dir, '--member', '3'], 1);
    expect(refused).toMatch(/The repair did not start: guardian 1, guardian 2 have not approved this roster as a repair/); // prettier-ignore
    expect(refused).toContain(`npm run guardian -- approve --kind repair --dir <guardian 1's own directory> --roster ${rosterPath(2)}`); // prettier-ignore
    // A refresh's approval of the same roster (the same seats) does not cover a repair.
    await approve(1, 2, 'refresh');
    expect(await cli(['repair', '--dir', dir, '--member', '3'], 1)).toMatch(/guardian 1 \(guardian-1\): not approved: .*repair to set 2/); // prettier-ignore
    expect(await waitHealthy(url(3))).toMatchObject({ state: 'waiting', sets: [] });
    expect(await signs(set1, 1)).toEqual(expect.arrayContaining([1, 2]));
  }, 120_000);

  it('refuses strangers, forged and replayed pieces, and names a helper whose sum is bad; nothing is written', async () => {
    for (const id of [1, 2])
      expect(await approve(id, 2)).toContain('one seat’s lost share rebuilt');
    const roster = parseSetBody(JSON.parse(readFileSync(rosterPath(2), 'utf8')));
    let session = '';
    const log = (e: Record<string, unknown>) => {
      if (e.event === 'repair-session') session = e.session as string;
    };
    expect(await runRepair(set1, roster, 3, coordinatorId, { stopAfter: 'pieces', log })).toBe(undefined); // prettier-ignore
    const id = (i: number) => loadIdentity(join(i === 3 ? backup : g(i), 'identity.json'));
    const spec = { session, set: set1, lost: 3, helpers: [1, 2] };
    const share2 = readShareFile(join(g(2), 'share.json')).secret.signingShare;
    const piece = new RepairHelper(id(2), 2, share2, spec).pieceBodies().get(1) as Record<string, unknown>; // prettier-ignore
    const send = (identity: Identity, type: MessageType, body: unknown, to = 1) =>
      callParty({ url: url(to), identity, to: set1.members[to - 1]!.identityKey, setVersion: 1, type, body, timeoutMs: 5_000 }); // prettier-ignore
    // Guardian 2 already sent its piece in this session: a second one is replayed.
    expect(await codeOf(send(id(2), 'repair/piece', piece))).toMatch(/^replayed: guardian 2 already sent its piece/); // prettier-ignore
    // Guardian 3 (a member, no helper) signs a piece in guardian 2's name: forged.
    expect(await codeOf(send(id(3), 'repair/piece', piece))).toMatch(/^refused: the message of guardian 2 is signed by another key/); // prettier-ignore
    expect(await codeOf(send(newIdentity(), 'repair/piece', piece))).toMatch(
      /^sender-not-in-set: /,
    );
    expect(await codeOf(send(id(2), 'repair/piece', { ...piece, session: 'cd'.repeat(16) }))).toMatch(/^refused: this message belongs to another repair session/); // prettier-ignore
    // A stranger's repair roster to the waiting guardian, and its sum: not from the set's parties.
    const wire = { session, current: set1, next: roster, helpers: [1, 2], lost: 3 };
    expect(await codeOf(send(newIdentity(), 'repair/roster', wire, 3))).toMatch(/^sender-not-in-set: /); // prettier-ignore
    expect(await codeOf(send(newIdentity(), 'repair/sum', piece, 3))).toMatch(/^sender-not-in-set: /); // prettier-ignore

    // Guardian 2 turns malicious: its sum to guardian 3 fails the points it published.
    await stop('g2');
    await start('evil2', EVIL, ['--id', '2', '--dir', g(2), '--mode', 'bad-repair-sum'], url(2));
    const bad = await cli(['repair', '--dir', dir, '--member', '3'], 1);
    expect(bad).toMatch(/the repair failed at repair\/finish: guardian 2 \(guardian-2\): guardian 2 sent a repair sum its pieces do not hold/); // prettier-ignore
    expect(readdirSync(g(3)).filter((f) => /share|guardian-set/.test(f))).toEqual([]);
    expect(await waitHealthy(url(3))).toMatchObject({ state: 'waiting', sets: [] });
    for (const i of [1, 2]) expect(existsSync(join(g(i), 'guardian-set-v2.json'))).toBe(false);
    await stop('evil2');
    await start('g2', CLI, ['--id', '2', '--dir', g(2)], url(2));
  }, 120_000);

  it('repairs: guardian 3 holds its own share again, the key is the same, and it signs', async () => {
    const out = await cli(['repair', '--dir', dir, '--member', '3'], 0);
    const set2 = verifySet(JSON.parse(readFileSync(join(dir, 'guardian-set.json'), 'utf8')), { previous: set1 }); // prettier-ignore
    expect(set2).toMatchObject({ version: 2, groupKey: set1.groupKey, frost: set1.frost });
    expect(existsSync(join(dir, 'guardian-set-v1.json'))).toBe(true);
    expect(out).toContain('"event":"repair-complete"');
    const rebuilt = readShareFile(join(g(3), 'share.json'));
    expect(Buffer.from(rebuilt.secret.signingShare).toString('hex')).toBe(lostShare);
    expect(allOutput.some((line) => line.includes(lostShare))).toBe(false);
    expect(await waitHealthy(url(3))).toMatchObject({ state: 'ready', setVersion: 2, sets: [2] });
    // Guardians 1 and 3 alone sign for set 2; restarted, guardian 3 reads set 2 from its directory.
    await stop('g2');
    await stop('g3');
    await start('g3', CLI, ['--dir', g(3)], url(3));
    expect(await signs(set2, 2)).toEqual([1, 3]);
    await start('g2', CLI, ['--id', '2', '--dir', g(2)], url(2));
  }, 120_000);

  it('a guardian that lost its identity key too is repaired into its seat with a new one', async () => {
    await stop('g3');
    rmSync(g(3), { recursive: true });
    const part = (await cli(['init', '--dir', g(3), '--url', url(3), '--name', 'guardian-3b'], 0)).trim().split('\n').at(-1)!; // prettier-ignore
    writeFileSync(join(dir, 'part-3b.json'), part);
    await start('g3', CLI, ['--dir', g(3)], url(3));
    const set2 = verifySet(JSON.parse(readFileSync(join(dir, 'guardian-set.json'), 'utf8')));
    const args = ['repair', '--dir', dir, '--member', '3', '--with', join(dir, 'part-3b.json')];
    expect(await cli(args, 1)).toMatch(/guardian 1, guardian 2 have not approved/);
    const roster = rosterPath(3);
    for (const id of [1, 2]) {
      const summary = await approve(id, 3);
      expect(summary).toMatch(/added: {3}guardian 3 \(guardian-3b\)/);
      expect(summary).toMatch(/removed: guardian 3 \(guardian-3\)/);
    }
    expect(existsSync(roster)).toBe(true);
    await cli(args, 0);
    const set3 = verifySet(JSON.parse(readFileSync(join(dir, 'guardian-set.json'), 'utf8')), { previous: set2 }); // prettier-ignore
    expect(set3.members[2]!.identityKey).toBe(loadIdentity(join(g(3), 'identity.json')).publicKey);
    expect(set3).toMatchObject({ groupKey: set1.groupKey, frost: set1.frost });
    expect(Buffer.from(readShareFile(join(g(3), 'share.json')).secret.signingShare).toString('hex')).toBe(lostShare); // prettier-ignore
    await stop('g1');
    expect(await signs(set3, 3)).toEqual([2, 3]);
  }, 120_000);
});

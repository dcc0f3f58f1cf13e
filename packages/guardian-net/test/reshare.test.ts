// Resharing among real processes on loopback: a 2-of-3 network made by the CLI's DKG, a new
// guardian made by `guardian init` in its own directory, and `guardian reshare --replace 3` once
// the operators of guardians 1 and 2 and the newcomer approved the roster as a reshare. The group
// key stays; the new set (1, 2 and the newcomer) signs under it; the replaced guardian's old share signs nothing for
// the new set; a run stopped between the deals and the install leaves every member on set 1; and
// forged, replayed and out-of-set resharing messages are refused.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FrostPublic, FrostSecret } from '@noble/curves/abstract/frost.js';
import { schnorr } from '@noble/curves/secp256k1.js';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { hexToBytes } from '../src/canonical';
import { Coordinator } from '../src/coordinator';
import { frost, publicFromJson, readShareFile } from '../src/frost';
import { verifySet, type GuardianSet, type GuardianSetBody } from '../src/guardian-set';
import { loadIdentity, newIdentity, type Identity } from '../src/identity';
import { dealBodies } from '../src/reshare-rounds';
import { runReshare } from '../src/reshare-run';
import { callParty, RemoteError } from '../src/transport';
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

const dir = mkdtempSync(join(tmpdir(), 'guardian-reshare-'));
const newDir = join(dir, 'newcomer');
const partFile = join(dir, 'newcomer.json');
const rosterPath = join(dir, 'roster-v2.json');
let basePort = 0;
let set1: GuardianSet;
let coordinatorId: Identity;
let newcomerUrl = '';
const procs = new Map<string, Proc>();

async function start(key: string, args: string[], url: string): Promise<void> {
  const p = run(CLI, ['start', ...args, '--policy', 'approve-all']);
  procs.set(key, p);
  await waitHealthy(url);
}

const codeOf = (p: Promise<unknown>) =>
  p.then(
    () => 'accepted',
    (e: unknown) => (e instanceof RemoteError ? `${e.code}: ${e.message}` : String(e)),
  );

const message = (b: number) => new Uint8Array(32).fill(b);

async function signs(set: GuardianSet, b: number): Promise<boolean> {
  const signed = await new Coordinator(set, coordinatorId, 10_000).sign(message(b), {
    kind: 'manual',
  });
  return schnorr.verify(signed.signature, message(b), hexToBytes(set1.groupKey!));
}

beforeAll(async () => {
  basePort = await freePorts(4);
  const dkg = run(CLI, ['dkg', '--dir', dir, '--n', '3', '--t', '2', '--base-port', String(basePort)]); // prettier-ignore
  expect(await dkg.exited, dkg.output()).toBe(0);
  set1 = verifySet(JSON.parse(readFileSync(join(dir, 'guardian-set.json'), 'utf8')));
  coordinatorId = loadIdentity(join(dir, 'coordinator', 'identity.json'));
  await Promise.all(
    set1.members.map((m) =>
      start(`old-${m.id}`, ['--id', String(m.id), '--dir', join(dir, `guardian-${m.id}`)], m.url),
    ),
  );
  newcomerUrl = `http://127.0.0.1:${basePort + 3}`;
  const init = run(CLI, ['init', '--dir', newDir, '--url', newcomerUrl, '--name', 'newcomer']);
  expect(await init.exited, init.output()).toBe(0);
  writeFileSync(partFile, init.output().trim().split('\n').at(-1)!);
  await start('newcomer', ['--dir', newDir], newcomerUrl);
}, 120_000);

afterAll(async () => {
  await Promise.all([...procs.values()].map((p) => (p.child.exitCode === null ? kill9(p) : null)));
  rmSync(dir, { recursive: true, force: true });
});

/** Every member is on set 1 alone, nothing of a set 2 is on any disk, and set 1 signs. */
async function expectSet1(b: number): Promise<void> {
  for (const m of set1.members) {
    expect(await waitHealthy(m.url)).toMatchObject({ setVersion: 1, sets: [1] });
    expect(existsSync(join(dir, `guardian-${m.id}`, 'guardian-set-v2.json'))).toBe(false);
  }
  expect(await waitHealthy(newcomerUrl)).toMatchObject({ sets: [], groupKey: null });
  expect(existsSync(join(newDir, 'guardian-set.json'))).toBe(false);
  expect(await signs(set1, b)).toBe(true);
}

/** Whether `secrets` sign together a signature valid under the group key (aggregate unchecked). */
function mixedSigns(pub: FrostPublic, secrets: FrostSecret[], msg: Uint8Array): boolean {
  const r1 = secrets.map((s) => frost.commit(s));
  const list = r1.map((r) => r.commitments);
  const shares = Object.fromEntries(
    secrets.map((s, i) => [s.identifier, frost.signShare(s, pub, r1[i]!.nonces, list, msg)]),
  );
  try {
    return schnorr.verify(frost.aggregate(pub, list, msg, shares), msg, hexToBytes(set1.groupKey!));
  } catch {
    return false;
  }
}

const approveReshare = (id: number) =>
  run(CLI, ['approve', '--kind', 'reshare', '--dir', join(dir, `guardian-${id}`), '--roster', rosterPath, '--yes']); // prettier-ignore

describe('a member replaced with the same group key', () => {
  it('refuses to start until the staying operators approve the roster as a reshare', async () => {
    const cmd = run(CLI, ['reshare', '--dir', dir, '--roster', rosterPath, '--replace', '3', '--with', partFile]); // prettier-ignore
    expect(await cmd.exited, cmd.output()).toBe(1);
    expect(cmd.output()).toMatch(
      /The resharing did not start: guardian 1, guardian 2, guardian 3 have not approved this roster as a reshare/,
    );
    expect(cmd.output()).toContain(
      `npm run guardian -- approve --kind reshare --dir <guardian 1's own directory> --roster ${rosterPath}`,
    );
    // A rotation's approval does not cover a resharing of the same roster.
    const rotation = run(CLI, ['approve', '--dir', join(dir, 'guardian-1'), '--roster', rosterPath, '--yes']); // prettier-ignore
    expect(await rotation.exited, rotation.output()).toBe(0);
    const again = run(CLI, ['reshare', '--dir', dir, '--roster', rosterPath]);
    expect(await again.exited, again.output()).toBe(1);
    expect(again.output()).toContain(
      'guardian 1 (guardian-1): not approved: this guardian’s operator has not approved the reshare to set 2',
    );
    await expectSet1(1);
  }, 60_000);

  it('a run stopped between the deals and the install leaves every member on set 1; hostile deals are refused', async () => {
    for (const id of [1, 2]) {
      const a = approveReshare(id);
      expect(await a.exited, a.output()).toBe(0);
      expect(a.output()).toContain('Resharing (the same group key; no vault moves)');
    }
    // The newcomer's operator approves it on its own machine, as a new member with no set.
    const a3 = run(CLI, ['approve', '--kind', 'reshare', '--dir', newDir, '--roster', rosterPath, '--yes']); // prettier-ignore
    expect(await a3.exited, a3.output()).toBe(0);
    expect(a3.output()).toContain('a new member with no set yet');
    const roster = JSON.parse(readFileSync(rosterPath, 'utf8')) as GuardianSetBody;
    let session = '';
    const log = (e: Record<string, unknown>) => {
      if (e.event === 'reshare-session') session = e.session as string;
    };
    expect(await runReshare(set1, roster, coordinatorId, { stopAfter: 'deals', log })).toBe(undefined); // prettier-ignore
    await expectSet1(2);
    // The coordinator stopped after the set was signed and handed over, before the install.
    expect(await runReshare(set1, roster, coordinatorId, { stopAfter: 'signed', log })).toBe(undefined); // prettier-ignore
    await expectSet1(3);

    const newKey = roster.members[2]!.identityKey;
    const spec = { session, current: set1, next: roster, dealers: [1, 2] };
    const g1 = loadIdentity(join(dir, 'guardian-1', 'identity.json'));
    const share1 = readShareFile(join(dir, 'guardian-1', 'share.json')).secret.signingShare;
    const deal = dealBodies(g1, 1, share1, spec).get(3) as Record<string, unknown>;
    const send = (identity: Identity, body: unknown) =>
      callParty({ url: newcomerUrl, identity, to: newKey, setVersion: 1, type: 'reshare/deal', body, timeoutMs: 5_000 }); // prettier-ignore
    // A second deal of dealer 1 in the session under way: replayed.
    expect(await codeOf(send(g1, deal))).toMatch(/^replayed: guardian 1 already dealt/);
    // Guardian 1 signs a deal in dealer 2's name: forged.
    expect(await codeOf(send(g1, { ...deal, dealer: 2 }))).toMatch(/^refused: the deal of guardian 2 is signed by another key/); // prettier-ignore
    // A stranger's deal, and a stranger's roster to a waiting guardian: out of set.
    expect(await codeOf(send(newIdentity(), deal))).toMatch(/^sender-not-in-set: /);
    const strangerRoster = callParty({ url: set1.members[0]!.url, identity: newIdentity(), to: set1.members[0]!.identityKey, setVersion: 1, type: 'reshare/roster', body: spec, timeoutMs: 5_000 }); // prettier-ignore
    expect(await codeOf(strangerRoster)).toMatch(/^sender-not-in-set: /);
    // A deal for another session.
    expect(await codeOf(send(g1, { ...deal, session: 'cd'.repeat(16) }))).toMatch(/^refused: this message belongs to another resharing session/); // prettier-ignore
    await expectSet1(4);
  }, 120_000);

  it('reshares: the same group key, the newcomer signs with the set, the old share does not', async () => {
    const cmd = run(CLI, ['reshare', '--dir', dir, '--roster', rosterPath]);
    expect(await cmd.exited, cmd.output()).toBe(0);
    const set2 = verifySet(JSON.parse(readFileSync(join(dir, 'guardian-set.json'), 'utf8')), {
      previous: set1,
    });
    expect(set2.version).toBe(2);
    expect(set2.groupKey).toBe(set1.groupKey);
    expect(set2.members[2]!.identityKey).toBe(loadIdentity(join(newDir, 'identity.json')).publicKey); // prettier-ignore
    expect(existsSync(join(dir, 'guardian-set-v1.json'))).toBe(true);
    expect(await waitHealthy(newcomerUrl)).toMatchObject({ setVersion: 2, sets: [2], groupKey: set1.groupKey }); // prettier-ignore
    // No process wrote a share, old or new, to its output.
    const shares = [join(newDir, 'share.json'), join(dir, 'guardian-1', 'share-v2.json'), join(dir, 'guardian-3', 'share.json')]; // prettier-ignore
    for (const file of shares) {
      const hex = Buffer.from(readShareFile(file).secret.signingShare).toString('hex');
      expect(allOutput.some((line) => line.includes(hex))).toBe(false);
    }
    // Guardians 1 and 2 retired set 1: the replaced guardian finds no partner there.
    for (const id of [1, 2])
      expect(await waitHealthy(set1.members[id - 1]!.url)).toMatchObject({ setVersion: 2, sets: [2] }); // prettier-ignore
    await expect(signs(set1, 8)).rejects.toThrow();
    // The replaced guardian and guardian 2 stop: guardian 1 and the newcomer sign for set 2.
    await kill9(procs.get('old-3')!);
    await kill9(procs.get('old-2')!);
    // Guardian 1 restarted reads set 2 alone from its directory (set 1 stays retired).
    await kill9(procs.get('old-1')!);
    await start('old-1', ['--id', '1', '--dir', join(dir, 'guardian-1')], set1.members[0]!.url);
    expect(await waitHealthy(set1.members[0]!.url)).toMatchObject({ setVersion: 2, sets: [2] });
    expect(await signs(set2, 5)).toBe(true);
    // The replaced guardian's old share is no share of set 2, and with guardian 1's new share it
    // signs nothing under the group key.
    const pub = publicFromJson(set2.frost!, set2.t, set2.n);
    const share = (id: number, file: string) => readShareFile(join(dir, `guardian-${id}`, file)).secret; // prettier-ignore
    const old3 = share(3, 'share.json');
    expect(() => frost.validateSecret(old3, pub)).toThrow();
    expect(mixedSigns(pub, [share(1, 'share-v2.json'), old3], message(6))).toBe(false);
    // What the docs name as the limit: t old shares together still rebuild the same key.
    expect(mixedSigns(pub, [share(1, 'share.json'), old3], message(7))).toBe(true);
  }, 120_000);
});

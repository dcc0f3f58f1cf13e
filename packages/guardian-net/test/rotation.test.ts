// Guardian rotation among real processes on loopback: a 2-of-3 set made by the CLI's DKG, then
// `guardian rotate --replace 3` while the three guardians run. Set 2 is made by a new DKG among
// guardians 1 and 2 (the same processes) and a new guardian 3, and handed over by set 1. A vault
// under set 1's key moves to an output whose update leaf holds set 2's key, signed by set 1; set 2
// signs the spend of that output; the replaced guardian's old share with another old share signs
// nothing under the new key.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { schnorr } from '@noble/curves/secp256k1.js';
import {
  chmodSync,
  copyFileSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bytesToHex, hexToBytes } from '../src/canonical';
import type { MessageType } from '../src/messages';
import { Coordinator } from '../src/coordinator';
import {
  frost,
  frostIdentifier,
  groupKeyXOnly,
  publicFromJson,
  publicToJson,
  readShareFile,
} from '../src/frost';
import {
  handoverDigest,
  previousOf,
  signHandover,
  signSet,
  verifySet,
  verifySetChain,
  type GuardianSet,
  type GuardianSetBody,
} from '../src/guardian-set';
import { ensureIdentity, loadIdentity, newIdentity, type Identity } from '../src/identity';
import { approveRoster } from '../src/approve';
import { approveFirstRoster } from '../src/approve-first';
import { collectHandover, nextRoster, runRotation } from '../src/rotate';
import { callParty, RemoteError } from '../src/transport';
import { allOutput, cliDkg, CLI, freePorts, kill9, run, waitHealthy, type Proc } from './harness';
import { vaultMove } from './vault-move';

const dir = mkdtempSync(join(tmpdir(), 'guardian-rot-'));
const nextDir = join(dir, 'next');
let basePort = 0;
let newPort = 0;
let set1: GuardianSet;
let set2: GuardianSet;
let set3: GuardianSet;
let coordinatorId: Identity;
const procs = new Map<string, Proc>();

async function startGuardian(key: string, id: number, gdir: string, port: number): Promise<void> {
  const p = run(
    CLI,
    ['start', '--id', String(id), '--dir', gdir, '--port', String(port)].concat([
      '--policy',
      'approve-all',
    ]),
  );
  procs.set(key, p);
  await waitHealthy(`https://127.0.0.1:${port}`);
}

async function stop(key: string): Promise<void> {
  const p = procs.get(key);
  if (p && p.child.exitCode === null) await kill9(p);
  procs.delete(key);
}

const codeOf = (p: Promise<unknown>) =>
  p.then(
    () => 'accepted',
    (e: unknown) => (e instanceof RemoteError ? `${e.code}: ${e.message}` : String(e)),
  );

/** A coordinator's message to guardian `id` of `set`. */
const ask = (set: GuardianSet, id: number, type: MessageType, body: unknown) =>
  callParty({
    url: set.members[id - 1]!.url,
    identity: coordinatorId,
    to: set.members[id - 1]!.identityKey,
    setVersion: set.version,
    type,
    body,
    timeoutMs: 15_000,
  });

/** A well-formed set of three strangers (trusted dealer), naming `prev` as the set it replaces. */
function strangersSet(prev = set1): GuardianSet {
  const ids = [newIdentity(), newIdentity(), newIdentity()];
  const dealt = frost.trustedDealer({ min: 2, max: 3 }, [1, 2, 3].map(frostIdentifier));
  const pub = publicToJson(dealt.public);
  const body: GuardianSetBody = {
    kind: 'unit/guardian-set',
    version: prev.version + 1,
    t: 2,
    n: 3,
    members: ids.map((k, i) => ({
      id: i + 1,
      name: `stranger-${i + 1}`,
      identityKey: k.publicKey,
      url: `https://127.0.0.1:${newPort + 10 + i}`,
    })),
    coordinators: set1.coordinators,
    frost: pub,
    groupKey: groupKeyXOnly(pub),
    previous: previousOf(prev),
  };
  const signatures = Object.fromEntries(
    ids.map((k, i) => [String(i + 1), signSet(body, k.secretKey)]),
  );
  return verifySet({ ...body, signatures });
}

beforeAll(async () => {
  basePort = await freePorts(3);
  do newPort = await freePorts(1);
  while (newPort >= basePort - 1 && newPort <= basePort + 3);
  set1 = await cliDkg(dir, basePort);
  coordinatorId = loadIdentity(join(dir, 'coordinator', 'identity.json'));
  await Promise.all(
    [1, 2, 3].map((id) =>
      startGuardian(`old-${id}`, id, join(dir, `guardian-${id}`), basePort + id - 1),
    ),
  );
  // Before any rotation: no guardian of set 1 hands over to a set it did not make itself.
  const strangers = strangersSet();
  for (const id of [1, 2, 3])
    expect(await codeOf(ask(set1, id, 'set/handover', strangers))).toMatch(
      /^refused: .*no DKG for set 2/,
    );
}, 120_000);

afterAll(async () => {
  await Promise.all([...procs.keys()].map(stop));
  rmSync(dir, { recursive: true, force: true });
});

/** Every guardian of set 1 is on set 1 with no DKG under way, and set 1 still signs. */
async function expectSet1Signs(): Promise<void> {
  for (const m of set1.members)
    expect(await waitHealthy(m.url)).toMatchObject({ setVersion: 1, sets: [1], rotatingTo: null });
  const message = new Uint8Array(32).fill(3);
  const signed = await new Coordinator(set1, coordinatorId, 10_000).sign(message, {
    kind: 'manual',
  });
  expect(schnorr.verify(signed.signature, message, hexToBytes(set1.groupKey!))).toBe(true);
}

describe('the coordinator alone cannot change the guardian set', () => {
  it('an attacker with only the coordinator identity and the published set: every rotation refused', async () => {
    const attacker = join(dir, 'attacker');
    mkdirSync(join(attacker, 'coordinator'), { recursive: true, mode: 0o700 });
    copyFileSync(
      join(dir, 'coordinator', 'identity.json'),
      join(attacker, 'coordinator', 'identity.json'),
    );
    chmodSync(join(attacker, 'coordinator', 'identity.json'), 0o600);
    copyFileSync(join(dir, 'guardian-set.json'), join(attacker, 'guardian-set.json'));
    const attack = (next: string, extra: string[]) =>
      run(CLI, ['rotate', '--dir', attacker, '--next-dir', join(attacker, next), ...extra]);
    // Two seats added, 2-of-5: the new members alone would be t. Every guardian refuses the rule.
    const grow = attack('grow', ['--n', '5', '--t', '2', '--base-port', String(newPort)]);
    expect(await grow.exited, grow.output()).toBe(1);
    for (const id of [1, 2, 3])
      expect(grow.output()).toContain(
        `guardian ${id}: refused: this guardian refuses the roster of set 2: 2 of its members would be new, as many as its threshold 2`,
      );
    // A replacement of one member that keeps the rules: no operator approved it.
    const replace = attack('replace', ['--replace', '3', '--base-port', String(newPort)]);
    expect(await replace.exited, replace.output()).toBe(1);
    expect(replace.output()).toMatch(
      /The rotation did not start: guardian 1, guardian 2 have not approved this roster\..*guardian 1: npm run guardian -- approve --dir <guardian 1's own directory> --roster .*attacker\/replace\/roster\.json/,
    );
    expect(replace.output()).toContain(
      'refused: not approved: this guardian’s operator has not approved the rotation to set 2',
    );
    // Nor can it approve for the guardians: their directories are not on its machine.
    const local = attack('replace', [
      '--replace',
      '3',
      '--base-port',
      String(newPort),
      '--approve-local',
    ]);
    expect(await local.exited, local.output()).toBe(1);
    expect(local.output()).toMatch(/--approve-local needs every staying guardian's own directory/);
    await expectSet1Signs();
  }, 60_000);
});

describe('guardian rotation: a new DKG for the next set, handed over by the current set', () => {
  beforeAll(async () => {
    const args = ['rotate', '--dir', dir, '--next-dir', nextDir, '--replace', '3'];
    const rotate = () => run(CLI, [...args, '--base-port', String(newPort)]);
    // Without the operators' approvals nothing starts; the command says what each one runs.
    const first = rotate();
    expect(await first.exited, first.output()).toBe(1);
    const rosterPath = join(nextDir, 'roster.json');
    for (const id of [1, 2])
      expect(first.output()).toContain(
        `"command":"npm run guardian -- approve --dir <guardian ${id}'s own directory> --roster ${rosterPath}"`,
      );
    await expectSet1Signs();
    // Each operator reads the change on the guardian's machine, then approves it with --yes.
    const look = run(CLI, ['approve', '--dir', join(dir, 'guardian-1'), '--roster', rosterPath]);
    expect(await look.exited, look.output()).toBe(0);
    expect(look.output()).toContain(
      `removed: guardian 3 (guardian-3) identity key ${set1.members[2]!.identityKey}`,
    );
    expect(look.output()).toContain('Nothing was recorded.');
    const approvals = [1, 2].map((id) =>
      run(CLI, ['approve', '--dir', join(dir, `guardian-${id}`), '--roster', rosterPath, '--yes']),
    );
    for (const a of approvals) expect(await a.exited, a.output()).toBe(0);
    const again = rotate();
    expect(await again.exited, again.output()).toBe(0);
    expect(again.output()).toContain('"event":"rotation-complete"');
    set2 = verifySet(JSON.parse(readFileSync(join(nextDir, 'guardian-set.json'), 'utf8')));
  }, 120_000);

  it('set 2 replaces guardian 3, keeps 1 and 2, and verifies with its handover from set 1', async () => {
    expect(set2).toMatchObject({ version: 2, t: 2, n: 3 });
    expect(set2.groupKey).not.toBe(set1.groupKey);
    expect(set2.members.slice(0, 2)).toEqual(set1.members.slice(0, 2));
    expect(set2.members[2]!.identityKey).not.toBe(set1.members[2]!.identityKey);
    expect(set2.members[2]!.url).toBe(`https://127.0.0.1:${newPort}`);
    expect(set2.previous).toEqual(previousOf(set1));
    // Guardian 3 of set 1 (replaced, not in set 2's DKG) refused; guardians 1 and 2 handed over.
    expect(Object.keys(set2.handover!).sort()).toEqual(['1', '2']);
    expect(verifySet(set2, { previous: set1 }).groupKey).toBe(set2.groupKey);
    // A client that pinned set 1's key follows the chain to set 2, and not set 2 alone.
    expect(verifySetChain(set1.groupKey!, [set1, set2]).groupKey).toBe(set2.groupKey);
    expect(() => verifySetChain(set1.groupKey!, [set2])).toThrow(/another group key/);
    // The staying guardians sign for both sets now; the next network directory links to theirs.
    for (const id of [1, 2]) {
      const health = await waitHealthy(set1.members[id - 1]!.url);
      expect(health).toMatchObject({ setVersion: 2, sets: [1, 2], groupKey: set2.groupKey });
      expect(lstatSync(join(nextDir, `guardian-${id}`)).isSymbolicLink()).toBe(true);
    }
    expect(lstatSync(join(nextDir, 'guardian-3')).isDirectory()).toBe(true);
    // A rotation starts from the newest set only, and from a roster made from it.
    const roster3 = { ...set2, version: 3, previous: previousOf(set1) } as Record<string, unknown>;
    delete roster3.frost;
    delete roster3.groupKey;
    expect(await codeOf(ask(set1, 1, 'rotate/roster', { roster: roster3 }))).toMatch(
      /^refused: set 1 is not the newest/,
    );
    expect(await codeOf(ask(set2, 1, 'rotate/roster', { roster: roster3 }))).toMatch(
      /^refused: .*previous must name the set of version 2/,
    );
    const from1 = { ...roster3, previous: { ...previousOf(set1), version: 2 } };
    expect(await codeOf(ask(set2, 1, 'rotate/roster', { roster: from1 }))).toMatch(
      /^refused: the next set was not made from this guardian's set 2/,
    );
    // The handover is over: no guardian hands set 2 over again.
    expect(await codeOf(ask(set2, 2, 'set/handover', set2))).toMatch(
      /^refused: .*no DKG for set 3/,
    );
  });

  it('refuses set 2 without enough handover signatures, or signed by strangers', () => {
    const h = set2.handover!;
    const refuse = (handover: Record<string, string> | undefined) =>
      expect(() => verifySet({ ...set2, handover }, { previous: set1 })).toThrow();
    expect(() => verifySet({ ...set2, handover: { '1': h['1']! } }, { previous: set1 })).toThrow(
      /1 of the 2 signatures of set 1/,
    );
    refuse(undefined);
    refuse({});
    // Two strangers' keys signing the very same handover, under ids of set 1.
    const strangers = [newIdentity(), newIdentity()];
    expect(() =>
      verifySet(
        {
          ...set2,
          handover: {
            '1': signHandover(set2, strangers[0]!.secretKey),
            '2': signHandover(set2, strangers[1]!.secretKey),
          },
        },
        { previous: set1 },
      ),
    ).toThrow(/handover signature of guardian 1 of set 1 does not verify/);
    // Set 2's own new member is no member of set 1; a set-1 signature (other tag) is no handover.
    const newcomer = schnorr.sign(
      handoverDigest(set2),
      loadIdentity(join(nextDir, 'guardian-3', 'identity.json')).secretKey,
    );
    refuse({ '1': h['1']!, '3': Buffer.from(newcomer).toString('hex') });
    refuse({ '1': h['1']!, '2': set2.signatures['2']! });
    refuse({ '1': h['1']!, '4': h['2']! });
    // A set of strangers that names set 1, with a handover its guardians never gave.
    const strangersOwn = strangersSet();
    expect(() => verifySet({ ...strangersOwn, handover: h }, { previous: set1 })).toThrow(
      /does not verify/,
    );
  });

  it('a vault under set 1 moves to set 2 (signed by set 1), set 2 signs its spend, and old shares cannot', async () => {
    // Guardian 3 of set 1 is gone; 1 and 2 restart from the next network directory (both sets on
    // disk); the new guardian 3 starts from its own directory.
    await stop('old-3');
    for (const id of [1, 2]) {
      await stop(`old-${id}`);
      await startGuardian(`next-${id}`, id, join(nextDir, `guardian-${id}`), basePort + id - 1);
    }
    await startGuardian('next-3', 3, join(nextDir, 'guardian-3'), newPort);
    const { move, spendMoved } = vaultMove(hexToBytes(set1.groupKey!), hexToBytes(set2.groupKey!));
    const old = await new Coordinator(set1, coordinatorId, 10_000).sign(move.sighash, {
      kind: 'manual',
    });
    expect(old.signers).toEqual([1, 2]);
    expect(schnorr.verify(old.signature, move.sighash, hexToBytes(set1.groupKey!))).toBe(true);
    const moved = move.finish(old.signature);
    expect(moved.result).toEqual({ ok: true });
    // The moved vault's update leaf holds set 2's key: set 2 signs its spend.
    const spend = spendMoved(moved.txid);
    const signed = await new Coordinator(set2, coordinatorId, 10_000).sign(spend.sighash, {
      kind: 'manual',
    });
    expect(signed.signers.length).toBe(2);
    // The replaced guardian's old share and guardian 1's old share sign for set 1's key only.
    const shares = [1, 3].map((id) => readShareFile(join(dir, `guardian-${id}`, 'share.json')));
    const oldPub = publicFromJson(set1.frost!, 2, 3);
    const nonces = shares.map((s) => frost.commit(s.secret));
    const commitments = nonces.map((n) => n.commitments);
    const sigShares = Object.fromEntries(
      shares.map((s, i) => [
        s.secret.identifier,
        frost.signShare(s.secret, oldPub, nonces[i]!.nonces, commitments, spend.sighash),
      ]),
    );
    const stolen = frost.aggregate(oldPub, commitments, spend.sighash, sigShares);
    expect(schnorr.verify(stolen, spend.sighash, hexToBytes(set1.groupKey!))).toBe(true);
    expect(schnorr.verify(stolen, spend.sighash, hexToBytes(set2.groupKey!))).toBe(false);
    // Used as set 2's shares, the old shares fail set 2's verifying shares.
    const newPub = publicFromJson(set2.frost!, 2, 3);
    for (const s of shares) expect(() => frost.validateSecret(s.secret, newPub)).toThrow();
    // The project's check refuses the stolen signature on the very same spend; set 2's passes.
    const forged = spendMoved(moved.txid);
    expect(forged.sighash).toEqual(spend.sighash);
    expect(forged.finish(stolen).result.ok).toBe(false);
    expect(spend.finish(signed.signature).result).toEqual({ ok: true });
  }, 120_000);

  it('a second rotation changes t and n: set 3 is 3-of-4, replaces guardian 1, and follows the chain', async () => {
    const dir3 = join(dir, 'next3');
    let ports = await freePorts(2);
    while (ports <= basePort + 3 && ports + 1 >= basePort - 1) ports = await freePorts(2);
    const args = ['rotate', '--dir', nextDir, '--next-dir', dir3, '--replace', '1'];
    // One operator runs every guardian here: it approves from each staying guardian's directory.
    const flags = ['--n', '4', '--t', '3', '--base-port', String(ports), '--approve-local'];
    const rotate = run(CLI, [...args, ...flags]);
    expect(await rotate.exited, rotate.output()).toBe(0);
    set3 = verifySet(JSON.parse(readFileSync(join(dir3, 'guardian-set.json'), 'utf8')), {
      previous: set2,
    });
    expect(set3).toMatchObject({ version: 3, t: 3, n: 4 });
    expect(set3.members.slice(1, 3)).toEqual(set2.members.slice(1, 3));
    expect(Object.keys(set3.handover!).sort()).toEqual(['2', '3']);
    expect(verifySetChain(set1.groupKey!, [set1, set2, set3]).groupKey).toBe(set3.groupKey);
    expect(() => verifySetChain(set1.groupKey!, [set1, set3])).toThrow();
    // Guardian 2 signs for all three sets; set 3 signs with three guardians, set 1 still with two.
    expect(await waitHealthy(set1.members[1]!.url)).toMatchObject({ sets: [1, 2, 3] });
    await startGuardian('set3-1', 1, join(dir3, 'guardian-1'), ports);
    await startGuardian('set3-4', 4, join(dir3, 'guardian-4'), ports + 1);
    const message = new Uint8Array(32).fill(7);
    const three = await new Coordinator(set3, coordinatorId, 10_000).sign(message, {
      kind: 'manual',
    });
    expect(three.signers.length).toBe(3);
    expect(schnorr.verify(three.signature, message, hexToBytes(set3.groupKey!))).toBe(true);
    const one = await new Coordinator(set1, coordinatorId, 10_000).sign(message, {
      kind: 'manual',
    });
    expect(schnorr.verify(one.signature, message, hexToBytes(set1.groupKey!))).toBe(true);
  }, 120_000);

  it('mid-rotation, a guardian hands over only the set its own DKG made, signed by every member', async () => {
    // Set 3 -> set 4, replacing guardian 4, through the library with a coordinator that first
    // offers the staying guardians other sets to hand over.
    const dir4 = join(dir, 'next4');
    mkdirSync(join(dir4, 'guardian-4'), { recursive: true, mode: 0o700 });
    const port = await freePorts(1);
    const roster4 = nextRoster(
      set3,
      { replace: [4], n: 4, t: 3, basePort: port },
      () => ensureIdentity(join(dir4, 'guardian-4', 'identity.json')).publicKey,
    );
    writeFileSync(join(dir4, 'roster.json'), JSON.stringify(roster4));
    approveFirstRoster(join(dir4, 'guardian-4'), roster4, true);
    const p = run(CLI, [
      ...['start', '--id', '4', '--dir', join(dir4, 'guardian-4'), '--port', String(port)],
      ...['--roster', join(dir4, 'roster.json')],
    ]);
    procs.set('set4-4', p);
    await waitHealthy(`https://127.0.0.1:${port}`);
    for (const id of [1, 2, 3]) approveRoster(join(dir, 'next3', `guardian-${id}`), roster4, true);
    const refusals: string[] = [];
    const lying: typeof collectHandover = async (current, next, identity, timeoutMs) => {
      const { '1': _dropped, ...fewer } = next.signatures;
      refusals.push(await codeOf(ask(current, 2, 'set/handover', { ...next, signatures: fewer })));
      const urls = next.members.map((m) => (m.id === 4 ? { ...m, url: 'https://127.0.0.1:1' } : m));
      refusals.push(await codeOf(ask(current, 3, 'set/handover', { ...next, members: urls })));
      refusals.push(await codeOf(ask(current, 3, 'set/handover', strangersSet(current))));
      return collectHandover(current, next, identity, timeoutMs);
    };
    const set4 = await runRotation(set3, roster4, coordinatorId, 15_000, lying);
    expect(refusals[0]).toMatch(/^refused: the next set does not verify: .*guardian 1$/);
    expect(refusals[1]).toMatch(/^refused: set differs from this guardian.s roster or DKG result/);
    expect(refusals[2]).toMatch(/^refused: set differs from this guardian.s roster or DKG result/);
    // Guardians 1, 2 and 3 stay and hand over; guardian 4 of set 3 is in no DKG for set 4.
    expect(Object.keys(set4.handover!).sort()).toEqual(['1', '2', '3']);
    expect(verifySetChain(set1.groupKey!, [set1, set2, set3, set4]).version).toBe(4);
  }, 120_000);

  it('no share of any set appears in any line a guardian or the rotate command wrote', () => {
    const files = readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((f) =>
      /(^|\/)share(-v\d+)?\.json$/.test(f),
    );
    const secrets = new Set(
      files.map((f) => bytesToHex(readShareFile(join(dir, f)).secret.signingShare)),
    );
    expect(secrets.size).toBeGreaterThanOrEqual(10);
    const text = allOutput.join('');
    for (const secret of secrets) expect(text).not.toContain(secret);
  });
});

// A refresh's dealers are staying members that answer, among real processes on loopback: a 2-of-3
// network from the CLI's DKG. With guardian 3 killed, `guardian refresh` deals with guardians 1
// and 2 and installs set 2 on them; guardian 3, started again, refuses hostile catch-ups and then
// takes set 2 with its own new share from its signed deals (`refresh --install 3`). A dealer that
// stops answering once chosen (SIGSTOP) is left out and the refresh runs again with another; a
// dealer that deals a bad sub-share (the malicious fixture) is named and left out, and the refresh
// completes with the honest ones. Then a resharing that adds a member completes with a staying
// member killed, which then catches up from its deals; last, one that adds a member down during
// the run, which its operator started afterwards and which takes its share from its own deals.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { schnorr } from '@noble/curves/secp256k1.js';
import { mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bytesToHex, hexToBytes } from '../src/canonical';
import { approveRoster } from '../src/approve';
import { refreshRoster } from '../src/cli-refresh';
import { Coordinator } from '../src/coordinator';
import { sealMessage, type Wire } from '../src/envelope';
import { frost, publicFromJson, readShareFile } from '../src/frost';
import { parseSetBody, previousOf, verifySet, type GuardianSet } from '../src/guardian-set';
import { loadIdentity, newIdentity, type Identity } from '../src/identity';
import { PartyRun } from '../src/party-run';
import { runReshare, type ReshareDeals } from '../src/reshare-run';
import { RemoteError } from '../src/transport';
import {
  allOutput,
  CLI,
  EVIL,
  freePorts,
  kill9,
  run,
  waitHealthy,
  type Proc,
  plainLinksInThisFile,
} from './harness';

plainLinksInThisFile();

const dir = mkdtempSync(join(tmpdir(), 'guardian-reshare-dealers-'));
const g = (id: number) => join(dir, `guardian-${id}`);
let set1: GuardianSet;
let coordinatorId: Identity;
const procs = new Map<number, Proc>();
const frozen = new Set<number>();
/** the newest set (the in-process runs do not publish it in the network directory) */
let latest: GuardianSet;

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
const readSet = () => verifySet(JSON.parse(readFileSync(join(dir, 'guardian-set.json'), 'utf8')));

async function start(id: number, evil?: string): Promise<void> {
  const args = ['--id', String(id), '--dir', g(id)];
  procs.set(id, evil ? run(EVIL, [...args, '--mode', evil]) : run(CLI, ['start', ...args, '--policy', 'approve-all'])); // prettier-ignore
  await waitHealthy(url(id));
}

const stop = async (id: number) => {
  const p = procs.get(id);
  if (p && p.child.exitCode === null) await kill9(p);
};

/** A signature of `set` by the members `ids` alone: every other running member frozen meanwhile. */
async function onlySign(set: GuardianSet, b: number, ids: number[]): Promise<number[]> {
  const others = [...procs.entries()].filter(([id, p]) => !ids.includes(id) && !frozen.has(id) && p.child.exitCode === null); // prettier-ignore
  for (const [, p] of others) p.child.kill('SIGSTOP');
  try {
    const msg = new Uint8Array(32).fill(b);
    const signed = await new Coordinator(set, coordinatorId, 10_000).sign(msg, { kind: 'manual' }, undefined, { prefer: ids }); // prettier-ignore
    expect(schnorr.verify(signed.signature, msg, hexToBytes(set1.groupKey!))).toBe(true);
    return signed.signers.sort();
  } finally {
    for (const [, p] of others) p.child.kill('SIGCONT');
  }
}

/** Guardian `id`'s share of `set`, checked as its verifying share there, never printed. */
function shareOf(id: number, set: GuardianSet): string {
  const secret = readShareFile(join(g(id), `share-v${set.version}.json`)).secret;
  frost.validateSecret(secret, publicFromJson(set.frost!, set.t, set.n));
  const hex = bytesToHex(secret.signingShare);
  expect(allOutput.some((line) => line.includes(hex))).toBe(false);
  return hex;
}

/** Guardian `id`, still on `from`, takes `to` with the share its own `deals` make, checked. */
async function catchUpFromDeals(
  id: number,
  from: GuardianSet,
  to: GuardianSet,
  deals: ReshareDeals,
) {
  expect(await waitHealthy(url(id))).toMatchObject({ sets: [from.version] });
  const body = { session: deals.session, set: to, dealers: deals.dealers, deals: deals.deals[String(id)] }; // prettier-ignore
  await new PartyRun('resharing', from, coordinatorId, 10_000).call(from.members[id - 1]!, 'reshare/catch-up', body as never); // prettier-ignore
  expect(await waitHealthy(url(id))).toMatchObject({ sets: [to.version] });
  shareOf(id, to);
}

/** A guardian made by `guardian init` in its own directory under `dir`: the directory and its public part. */
async function newGuardian(name: string): Promise<{ nd: string; part: Record<string, string> }> {
  const port = await freePorts(1);
  const nd = join(dir, name);
  const part = JSON.parse((await cli(['init', '--dir', nd, '--url', `http://127.0.0.1:${port}`, '--name', name], 0)).trim().split('\n').at(-1)!) as Record<string, string>; // prettier-ignore
  return { nd, part };
}

/** The roster of `set` with the guardian of `part` added in the next seat, one version on. */
function rosterAdding(set: GuardianSet, part: Record<string, string>) {
  const { frost: _f, groupKey: _g, signatures: _s, handover: _h, ...body } = set;
  const members = [...set.members, { id: set.n + 1, ...part }];
  return parseSetBody({ ...body, version: set.version + 1, n: set.n + 1, members, previous: previousOf(set) }); // prettier-ignore
}

beforeAll(async () => {
  const base = await freePorts(3);
  await cli(['dkg', '--dir', dir, '--n', '3', '--t', '2', '--base-port', String(base)], 0);
  set1 = readSet();
  coordinatorId = loadIdentity(join(dir, 'coordinator', 'identity.json'));
  for (const m of set1.members) await start(m.id);
}, 120_000);

afterAll(async () => {
  for (const p of procs.values()) p.child.kill('SIGCONT');
  await Promise.all([...procs.keys()].map(stop));
  rmSync(dir, { recursive: true, force: true });
});

describe('a resharing dealt by the staying members that answer', () => {
  it('with guardian 3 killed, guardians 1 and 2 deal; guardian 3 catches up with its own new share', async () => {
    await stop(3);
    for (const id of [1, 2, 3]) approveRoster(g(id), refreshRoster(set1), true, 'refresh');
    const out = await cli(['refresh', '--dir', dir, '--timeout', '8000'], 0);
    expect(out).toMatch(/"event":"reshare-responsive","members":\[1,2\],"silent":\["guardian 3: unreachable/); // prettier-ignore
    expect(out).toMatch(/"event":"reshare-installed",.*"dealers":\[1,2\],"missed":\[3\]/);
    const set2 = verifySet(readSet(), { previous: set1 });
    expect(set2.groupKey).toBe(set1.groupKey);
    for (const id of [1, 2]) expect(await waitHealthy(url(id))).toMatchObject({ sets: [2] });
    expect(await onlySign(set2, 1, [1, 2])).toEqual([1, 2]);

    // Guardian 3 comes back on set 1. What it refuses, staying there: a stranger, another set
    // version than its own, a deal altered after its dealer signed it, deals swapped between
    // dealers, a set without its handover, the set while its operator's approval is away, and the
    // same signed message twice.
    await start(3);
    expect(await waitHealthy(url(3))).toMatchObject({ sets: [1] });
    const record = JSON.parse(readFileSync(join(dir, 'reshare-deals-v2.json'), 'utf8')) as ReshareDeals; // prettier-ignore
    const deals = record.deals['3']!;
    const member3 = set1.members[2]!;
    const body = { session: record.session, set: set2, dealers: record.dealers, deals };
    const send = (identity: Identity, b: object) =>
      codeOf(new PartyRun('resharing', set1, identity, 8_000).call(member3, 'reshare/catch-up', b as never)); // prettier-ignore
    expect(await send(newIdentity(), body)).toMatch(/^sender-not-in-set: /);
    const asSet2 = new PartyRun('resharing', set2, coordinatorId, 8_000).call(member3, 'reshare/catch-up', body as never); // prettier-ignore
    expect(await codeOf(asSet2)).toMatch(/^refused: guardian set version 1 expected/);
    const altered = (w: Wire): Wire => ({ ...w, payload: w.payload.replace(/"ct":"(.)/, (_, c: string) => `"ct":"${c === '0' ? '1' : '0'}`) }); // prettier-ignore
    expect(await send(coordinatorId, { ...body, deals: [altered(deals[0]!), deals[1]!] })).toMatch(/^refused: the deal of guardian 1 to guardian 3 is not signed by its dealer/); // prettier-ignore
    expect(await send(coordinatorId, { ...body, deals: [deals[1]!, deals[0]!] })).toMatch(/^refused: the deal of guardian 1 to guardian 3 is addressed otherwise/); // prettier-ignore
    const { handover: _h, ...unhanded } = set2;
    expect(await send(coordinatorId, { ...body, set: unhanded })).toMatch(/^refused: the next set does not verify: /); // prettier-ignore
    renameSync(join(g(3), 'approvals'), join(dir, 'approvals-3'));
    expect(await send(coordinatorId, body)).toMatch(/^refused: not approved: this guardian’s operator has not approved the refresh to set 2/); // prettier-ignore
    renameSync(join(dir, 'approvals-3'), join(g(3), 'approvals'));
    const wire = JSON.stringify(sealMessage({ type: 'reshare/catch-up', from: coordinatorId.publicKey, to: member3.identityKey, setVersion: 1, body: { ...body, set: unhanded } as never }, coordinatorId.secretKey)); // prettier-ignore
    const post = async () => (await fetch(`${member3.url}/v1/message`, { method: 'POST', body: wire, headers: { 'content-type': 'application/json' } })).status; // prettier-ignore
    expect([await post(), await post()]).toEqual([400, 409]);
    expect(await waitHealthy(url(3))).toMatchObject({ sets: [1] });

    expect(await cli(['refresh', '--dir', dir, '--install', '3'], 0)).toMatch(/"event":"reshare-install-sent","guardian":3,"version":2/); // prettier-ignore
    expect(await waitHealthy(url(3))).toMatchObject({ sets: [2] });
    const old = bytesToHex(readShareFile(join(g(3), 'share.json')).secret.signingShare);
    expect(shareOf(3, set2)).not.toBe(old);
    expect(await onlySign(set2, 2, [1, 3])).toEqual([1, 3]);
  }, 180_000);

  it('a dealer that stops answering once chosen is replaced by another staying member', async () => {
    const set2 = readSet();
    for (const id of [1, 2, 3]) approveRoster(g(id), refreshRoster(set2), true, 'refresh');
    const events: Record<string, unknown>[] = [];
    const sessions: number[][] = [];
    let deals: ReshareDeals | undefined;
    const onSession = (dealers: number[]) => {
      sessions.push(dealers);
      // The first dealer chosen freezes with its connections open, after it answered its health.
      if (sessions.length === 1) {
        procs.get(dealers[0]!)!.child.kill('SIGSTOP');
        frozen.add(dealers[0]!);
      }
    };
    const log = (e: Record<string, unknown>) => events.push(e);
    const onCertified = (_: GuardianSet, d: ReshareDeals) => (deals = d);
    const set3 = (await runReshare(set2, refreshRoster(set2), coordinatorId, { timeoutMs: 8_000, probeMs: 2_000, log, onSession, onCertified }))!; // prettier-ignore
    expect(sessions).toEqual([[1, 2], [2, 3]]); // prettier-ignore
    expect(events.find((e) => e.event === 'reshare-retry')).toMatchObject({ leftOut: [1], reason: expect.stringMatching(/guardian 1 \(guardian-1\): timed out/) }); // prettier-ignore
    expect(events.find((e) => e.event === 'reshare-installed')).toMatchObject({ dealers: [2, 3], missed: [1] }); // prettier-ignore
    expect(set3.groupKey).toBe(set1.groupKey);
    for (const id of [2, 3]) expect(await waitHealthy(url(id))).toMatchObject({ sets: [3] });
    expect(await onlySign(set3, 3, [2, 3])).toEqual([2, 3]);

    // Thawed, guardian 1 is still on set 2 until it is sent its deals.
    procs.get(1)!.child.kill('SIGCONT');
    frozen.delete(1);
    await catchUpFromDeals(1, set2, set3, deals!);
    expect(await onlySign(set3, 4, [1, 2])).toEqual([1, 2]);
    latest = set3;
  }, 180_000);

  it('a dealer that deals a bad sub-share is named and left out; the honest ones finish', async () => {
    const current = latest;
    await stop(1);
    await start(1, 'bad-reshare-deal');
    for (const id of [1, 2, 3]) approveRoster(g(id), refreshRoster(current), true, 'refresh');
    const events: Record<string, unknown>[] = [];
    const log = (e: Record<string, unknown>) => events.push(e);
    const set4 = (await runReshare(current, refreshRoster(current), coordinatorId, { timeoutMs: 8_000, log }))!; // prettier-ignore
    expect(events.find((e) => e.event === 'reshare-retry')).toMatchObject({ blamed: [1], leftOut: [], reason: expect.stringMatching(/guardian 1 dealt a sub-share that fails its own commitments/) }); // prettier-ignore
    expect(events.find((e) => e.event === 'reshare-installed')).toMatchObject({ dealers: [2, 3], missed: [] }); // prettier-ignore
    expect(set4.groupKey).toBe(set1.groupKey);
    for (const id of [1, 2, 3]) expect(await waitHealthy(url(id))).toMatchObject({ sets: [4] });
    expect(await onlySign(set4, 5, [2, 3])).toEqual([2, 3]);
    latest = set4;
  }, 180_000);

  it('a resharing that adds a member completes with a staying member killed, which catches up', async () => {
    const set4 = latest;
    await stop(1);
    await start(1);
    const { nd, part } = await newGuardian('newcomer');
    procs.set(4, run(CLI, ['start', '--dir', nd, '--policy', 'approve-all']));
    expect(await waitHealthy(part.url!)).toMatchObject({ state: 'waiting' });
    const roster = rosterAdding(set4, part);
    for (const id of [1, 2, 3]) approveRoster(g(id), roster, true, 'reshare');
    // The newcomer's own operator approves the roster too, as a new member with no set.
    expect(approveRoster(nd, roster, true, 'reshare').lines.join('\n')).toMatch(/a new member with no set yet/); // prettier-ignore
    await stop(3);
    const events: Record<string, unknown>[] = [];
    let deals: ReshareDeals | undefined;
    const log = (e: Record<string, unknown>) => events.push(e);
    const onCertified = (_: GuardianSet, d: ReshareDeals) => (deals = d);
    const set5 = (await runReshare(set4, roster, coordinatorId, { timeoutMs: 8_000, log, onCertified }))!; // prettier-ignore
    expect(events.find((e) => e.event === 'reshare-installed')).toMatchObject({ dealers: [1, 2], missed: [3] }); // prettier-ignore
    expect([set5.groupKey, set5.n, set5.t]).toEqual([set1.groupKey, 4, 2]);
    expect(await waitHealthy(part.url!)).toMatchObject({ state: 'ready', sets: [5] });
    // Guardian 3 back on set 4 takes set 5 from its own deals, and signs with the newcomer.
    await start(3);
    await catchUpFromDeals(3, set4, set5, deals!);
    expect(await onlySign(set5, 6, [3, 4])).toEqual([3, 4]);
    latest = set5;
  }, 180_000);

  it('a new member down during the resharing that adds it is caught up later from its deals', async () => {
    const set5 = latest;
    const { nd, part } = await newGuardian('late');
    const roster = rosterAdding(set5, part);
    const rosterFile = join(dir, 'roster-v6.json');
    writeFileSync(rosterFile, JSON.stringify(roster));
    for (const id of [1, 2, 3]) approveRoster(g(id), roster, true, 'reshare');
    approveRoster(join(dir, 'newcomer'), roster, true, 'reshare');
    // Its operator approves it on its own machine, with the guardian not started yet.
    expect(await cli(['approve', '--kind', 'reshare', '--dir', nd, '--roster', rosterFile, '--yes'], 0)).toMatch(/Resharing of guardian set 5 to set 6 \(the same group key/); // prettier-ignore
    // The coordinator's command, from the network directory holding set 5; guardian 5 is down.
    writeFileSync(join(dir, 'guardian-set.json'), JSON.stringify(set5));
    const out = await cli(['reshare', '--dir', dir, '--roster', rosterFile, '--timeout', '8000'], 0); // prettier-ignore
    expect(out).toMatch(/"event":"reshare-new-members","members":\[\],"silent":\["guardian 5: unreachable/); // prettier-ignore
    expect(out).toMatch(/"event":"reshare-installed",.*"missed":\[5\]/);
    const set6 = verifySet(readSet(), { previous: set5 });
    expect([set6.groupKey, set6.n, set6.t]).toEqual([set1.groupKey, 5, 2]);
    expect(await onlySign(set6, 7, [1, 4])).toEqual([1, 4]);

    procs.set(5, run(CLI, ['start', '--dir', nd, '--policy', 'approve-all']));
    expect(await waitHealthy(part.url!)).toMatchObject({ state: 'waiting', sets: [] });
    const member5 = set6.members[4]!;
    const record = JSON.parse(readFileSync(join(dir, 'reshare-deals-v6.json'), 'utf8')) as ReshareDeals; // prettier-ignore
    const deals = record.deals['5']!;
    const catchUp = { session: record.session, set: set6, current: set5, dealers: record.dealers, deals }; // prettier-ignore
    const send = (b: object, identity = coordinatorId, from = set5) =>
      codeOf(new PartyRun('resharing', from, identity, 8_000).call(member5, 'reshare/catch-up', b as never)); // prettier-ignore
    // What it refuses, staying without a set: a stranger, a catch-up that names no set it was
    // dealt from or another one, a deal altered after its dealer signed it, deals swapped between
    // dealers, another member's deals, a set without its handover, the roster while its
    // operator's approval is away, and the same signed message twice.
    expect(await send(catchUp, newIdentity())).toMatch(/^sender-not-in-set: /);
    const { current: _c, ...bare } = catchUp;
    expect(await send(bare)).toMatch(/^sender-not-in-set: /);
    expect(await send({ ...catchUp, current: set1 })).toMatch(/^sender-not-in-set: /);
    expect(await send({ ...catchUp, current: set1 }, coordinatorId, set1)).toMatch(/^refused: the next set does not verify: /); // prettier-ignore
    const altered = (w: Wire): Wire => ({ ...w, payload: w.payload.replace(/"ct":"(.)/, (_, c: string) => `"ct":"${c === '0' ? '1' : '0'}`) }); // prettier-ignore
    expect(await send({ ...catchUp, deals: [altered(deals[0]!), deals[1]!] })).toMatch(new RegExp(`^refused: the deal of guardian ${record.dealers[0]} to guardian 5 is not signed by its dealer`)); // prettier-ignore
    expect(await send({ ...catchUp, deals: [deals[1]!, deals[0]!] })).toMatch(/^refused: the deal of guardian \d to guardian 5 is addressed otherwise/); // prettier-ignore
    expect(await send({ ...catchUp, deals: record.deals['4'] })).toMatch(/^refused: the deal of guardian \d to guardian 5 is addressed otherwise/); // prettier-ignore
    const { handover: _hh, ...unhanded } = set6;
    expect(await send({ ...catchUp, set: unhanded })).toMatch(/^refused: the next set does not verify: /); // prettier-ignore
    renameSync(join(nd, 'approvals'), join(dir, 'approvals-late'));
    expect(await send(catchUp)).toMatch(/^refused: not approved: this guardian’s operator has not approved the reshare to set 6/); // prettier-ignore
    renameSync(join(dir, 'approvals-late'), join(nd, 'approvals'));
    const wire = JSON.stringify(sealMessage({ type: 'reshare/catch-up', from: coordinatorId.publicKey, to: member5.identityKey, setVersion: 5, body: { ...catchUp, set: unhanded } as never }, coordinatorId.secretKey)); // prettier-ignore
    const post = async () => (await fetch(`${member5.url}/v1/message`, { method: 'POST', body: wire, headers: { 'content-type': 'application/json' } })).status; // prettier-ignore
    expect([await post(), await post()]).toEqual([400, 409]);
    expect(await waitHealthy(part.url!)).toMatchObject({ state: 'waiting', sets: [] });

    // The coordinator's catch-up: guardian 5 takes set 6 with its share of the same key, and signs.
    expect(await cli(['reshare', '--dir', dir, '--install', '5'], 0)).toMatch(/"event":"reshare-install-sent","guardian":5,"version":6/); // prettier-ignore
    expect(await waitHealthy(part.url!)).toMatchObject({ state: 'ready', sets: [6], groupKey: set1.groupKey }); // prettier-ignore
    const secret = readShareFile(join(nd, 'share.json')).secret;
    frost.validateSecret(secret, publicFromJson(set6.frost!, set6.t, set6.n));
    expect(allOutput.some((line) => line.includes(bytesToHex(secret.signingShare)))).toBe(false);
    expect(await onlySign(set6, 8, [2, 5])).toEqual([2, 5]);
    // The same catch-up again is for a set it no longer follows.
    expect(await send(catchUp)).toMatch(/^refused: guardian set version 6 expected/);
  }, 180_000);
});

// A refresh among real processes on loopback: a 2-of-3 network made by the CLI's DKG deals every
// share again to the same members under the same group key, once each member's operator approved
// the roster as a refresh. Refused before the approvals; hostile refresh messages (oversized,
// malformed, replayed, forged, out-of-set, wrong-version, peer-sent) refused, changing nothing; a
// refresh stopped before its install leaves every member on set 1. After it every share is new,
// an old share combines with no new one, the group key is the same and a vault spend still signs.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FrostPublic, FrostSecret } from '@noble/curves/abstract/frost.js';
import { schnorr } from '@noble/curves/secp256k1.js';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bytesToHex, hexToBytes } from '../src/canonical';
import { Coordinator } from '../src/coordinator';
import { MAX_MESSAGE_BYTES, sealMessage } from '../src/envelope';
import { frost, publicFromJson, readShareFile } from '../src/frost';
import { verifySet, type GuardianSet, type GuardianSetBody } from '../src/guardian-set';
import { loadIdentity, newIdentity, type Identity } from '../src/identity';
import { refreshRoster } from '../src/cli-refresh';
import { runReshare } from '../src/reshare-run';
import { callParty, RemoteError } from '../src/transport';
import { vaultSpend } from './vault-spend';
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

const dir = mkdtempSync(join(tmpdir(), 'guardian-refresh-'));
const g = (id: number) => join(dir, `guardian-${id}`);
const rosterPath = join(dir, 'refresh-v2.json');
let set1: GuardianSet;
let coordinatorId: Identity;
const procs: Proc[] = [];

const cli = async (args: string[], code: number) => {
  const p = run(CLI, args);
  expect(await p.exited, p.output()).toBe(code);
  return p.output();
};

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

/** Whether `secrets` sign together a signature valid under the group key. */
function combine(pub: FrostPublic, secrets: FrostSecret[], msg: Uint8Array): boolean {
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

beforeAll(async () => {
  const base = await freePorts(3);
  await cli(['dkg', '--dir', dir, '--n', '3', '--t', '2', '--base-port', String(base)], 0);
  set1 = verifySet(JSON.parse(readFileSync(join(dir, 'guardian-set.json'), 'utf8')));
  coordinatorId = loadIdentity(join(dir, 'coordinator', 'identity.json'));
  for (const m of set1.members) {
    procs.push(run(CLI, ['start', '--id', String(m.id), '--dir', g(m.id), '--policy', 'approve-all'])); // prettier-ignore
    await waitHealthy(m.url);
  }
}, 120_000);

afterAll(async () => {
  await Promise.all(procs.map((p) => (p.child.exitCode === null ? kill9(p) : null)));
  rmSync(dir, { recursive: true, force: true });
});

/** Every member is on set 1 alone, no set 2 on any disk, and set 1 signs. */
async function expectSet1(b: number): Promise<void> {
  for (const m of set1.members) {
    expect(await waitHealthy(m.url)).toMatchObject({ state: 'ready', setVersion: 1, sets: [1] });
    expect(existsSync(join(g(m.id), 'guardian-set-v2.json'))).toBe(false);
    expect(existsSync(join(g(m.id), 'share-v2.json'))).toBe(false);
  }
  expect(await signs(set1, b)).toBe(true);
}

describe('every share refreshed, the same group key and members', () => {
  it('does not start until every operator approves the roster as a refresh', async () => {
    const refused = await cli(['refresh', '--dir', dir], 1);
    expect(refused).toMatch(/The refresh did not start: guardian 1, guardian 2, guardian 3 have not approved this roster as a refresh/); // prettier-ignore
    expect(refused).toContain(`npm run guardian -- approve --kind refresh --dir <guardian 2's own directory> --roster ${rosterPath}`); // prettier-ignore
    // The roster keeps every seat: a resharing's approval of it is refused by the command itself.
    const asReshare = run(CLI, ['approve', '--kind', 'reshare', '--dir', g(1), '--roster', rosterPath, '--yes']); // prettier-ignore
    expect(await asReshare.exited).toBe(1);
    expect(asReshare.output()).toMatch(/keeps every member in its seat: it deals every share again, and is approved with --kind refresh/); // prettier-ignore
    await expectSet1(1);
  }, 60_000);

  it('refuses hostile refresh messages, and a refresh stopped before its install changes nothing', async () => {
    const summary = await cli(['approve', '--kind', 'refresh', '--dir', g(1), '--roster', rosterPath], 0); // prettier-ignore
    expect(summary).toContain('Refresh (the same group key and members, new shares) of guardian set 1 to set 2'); // prettier-ignore
    expect(summary).toContain('Nothing was recorded.');
    for (const id of [1, 2, 3])
      await cli(['approve', '--kind', 'refresh', '--dir', g(id), '--roster', rosterPath, '--yes'], 0); // prettier-ignore
    const roster = JSON.parse(readFileSync(rosterPath, 'utf8')) as GuardianSetBody;
    expect(roster).toEqual(JSON.parse(JSON.stringify(refreshRoster(set1))));
    expect(await runReshare(set1, roster, coordinatorId, { stopAfter: 'deals' })).toBe(undefined);
    await expectSet1(2);
    expect(await runReshare(set1, roster, coordinatorId, { stopAfter: 'signed' })).toBe(undefined); // prettier-ignore
    await expectSet1(3);

    const g1 = set1.members[0]!;
    const spec = { session: bytesToHex(randomBytes(16)), current: set1, next: roster, dealers: [1, 2] }; // prettier-ignore
    const send = (identity: Identity, body: unknown, setVersion = 1) =>
      callParty({ url: g1.url, identity, to: g1.identityKey, setVersion, type: 'reshare/roster', body, timeoutMs: 5_000 }); // prettier-ignore
    const post = async (body: string) => {
      const res = await fetch(`${g1.url}/v1/message`, { method: 'POST', body, headers: { 'content-type': 'application/json' } }); // prettier-ignore
      return `${res.status} ${((await res.json()) as { error?: { code?: string } }).error?.code}`;
    };
    const wire = (from: Identity, body: unknown, signer = from) =>
      JSON.stringify(sealMessage({ type: 'reshare/roster', from: from.publicKey, to: g1.identityKey, setVersion: 1, body: body as never }, signer.secretKey)); // prettier-ignore
    expect(await post(JSON.stringify({ payload: 'x'.repeat(MAX_MESSAGE_BYTES + 1), sig: '' }))).toBe('413 too-large'); // prettier-ignore
    expect(await post('{"payload": 5}')).toBe('400 malformed');
    expect(await post(wire(coordinatorId, spec, newIdentity()))).toBe('401 bad-signature');
    expect(await codeOf(send(newIdentity(), spec))).toMatch(/^sender-not-in-set: /);
    expect(await codeOf(send(coordinatorId, spec, 7))).toMatch(/^refused: guardian set version 1 expected/); // prettier-ignore
    const peer = loadIdentity(join(g(2), 'identity.json'));
    expect(await codeOf(send(peer, spec))).toMatch(/^not-allowed: reshare\/roster is for the coordinator only/); // prettier-ignore
    expect(await codeOf(send(coordinatorId, { ...spec, current: { ...set1, t: 3 } }))).toMatch(/^refused: bad resharing roster: /); // prettier-ignore
    expect(await codeOf(send(coordinatorId, { ...spec, session: 'not hex' }))).toMatch(/^(refused|malformed): /); // prettier-ignore
    // A roster that changes a member's URL is no refresh, and no operator approved it as a reshare.
    const moved = { ...roster, members: roster.members.map((m) => (m.id === 3 ? { ...m, url: 'http://127.0.0.1:9' } : m)) }; // prettier-ignore
    expect(await codeOf(send(coordinatorId, { ...spec, next: moved }))).toMatch(/^refused: not approved: this guardian’s operator has not approved the reshare to set 2/); // prettier-ignore
    // The same signed message twice: the second is a replay, refused before it is read.
    const once = wire(coordinatorId, { ...spec, dealers: 'none' });
    expect(await post(once)).toBe('400 malformed');
    expect(await post(once)).toBe('409 replayed');
    await expectSet1(4);
  }, 120_000);

  it('deals every share again: the same key, old shares combine with no new one, vaults keep signing', async () => {
    const out = await cli(['refresh', '--dir', dir], 0);
    expect(out).toMatch(/"event":"refresh-complete","version":2/);
    const set2 = verifySet(JSON.parse(readFileSync(join(dir, 'guardian-set.json'), 'utf8')), { previous: set1 }); // prettier-ignore
    expect(set2.groupKey).toBe(set1.groupKey);
    expect(set2.members).toEqual(set1.members);
    expect([set2.t, set2.n]).toEqual([set1.t, set1.n]);
    expect(existsSync(join(dir, 'guardian-set-v1.json'))).toBe(true);
    for (const m of set1.members) {
      expect(set2.frost!.verifyingShares).not.toEqual(set1.frost!.verifyingShares);
      expect(await waitHealthy(m.url)).toMatchObject({ setVersion: 2, sets: [2], groupKey: set1.groupKey }); // prettier-ignore
    }
    // Set 1 is retired on every member: its old shares find no partner there.
    await expect(signs(set1, 5)).rejects.toThrow();
    expect(await signs(set2, 6)).toBe(true);
    const spend = vaultSpend(hexToBytes(set2.groupKey!));
    const signed = await new Coordinator(set2, coordinatorId, 10_000).sign(spend.sighash, { kind: 'vault-update' }); // prettier-ignore
    expect(spend.finish(signed.signature)).toEqual({ ok: true });

    const share = (id: number, file: string) => readShareFile(join(g(id), file)).secret;
    const pub2 = publicFromJson(set2.frost!, set2.t, set2.n);
    for (const id of [1, 2, 3]) {
      const [before, after] = [share(id, 'share.json'), share(id, 'share-v2.json')];
      expect(bytesToHex(after.signingShare)).not.toBe(bytesToHex(before.signingShare));
      expect(() => frost.validateSecret(before, pub2)).toThrow();
      const hex = bytesToHex(after.signingShare);
      expect(allOutput.some((line) => line.includes(hex))).toBe(false);
    }
    // An old share with a new one signs nothing valid, either way round; two new ones do.
    expect(combine(pub2, [share(1, 'share.json'), share(2, 'share-v2.json')], message(7))).toBe(false); // prettier-ignore
    expect(combine(pub2, [share(1, 'share-v2.json'), share(3, 'share.json')], message(8))).toBe(false); // prettier-ignore
    expect(combine(pub2, [share(1, 'share-v2.json'), share(3, 'share-v2.json')], message(9))).toBe(true); // prettier-ignore
  }, 120_000);
});

// The DKG messages against a coordinator that lies: three guardian nodes in this process (each
// with its own directory, store and port), driven over loopback TLS.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseSetBody, verifySet, type GuardianSetBody } from '../src/guardian-set';
import type { MessageType } from '../src/messages';
import { ensureIdentity, newIdentity } from '../src/identity';
import { GuardianNode } from '../src/node';
import { callParty, RemoteError, type CallResult } from '../src/transport';
import { freePorts } from './harness';

const dir = mkdtempSync(join(tmpdir(), 'guardian-dkg-'));
const coordinator = newIdentity();
let roster: GuardianSetBody;
const nodes: GuardianNode[] = [];

beforeAll(async () => {
  const base = await freePorts(3);
  for (const id of [1, 2, 3]) mkdirSync(join(dir, `g${id}`), { mode: 0o700 });
  const members = [1, 2, 3].map((id) => ({
    id,
    name: `guardian-${id}`,
    identityKey: ensureIdentity(join(dir, `g${id}`, 'identity.json')).publicKey,
    url: `https://127.0.0.1:${base + id - 1}`,
  }));
  roster = parseSetBody({
    kind: 'unit/guardian-set',
    version: 0,
    t: 2,
    n: 3,
    members,
    coordinators: [{ name: 'coordinator', identityKey: coordinator.publicKey }],
  });
  for (const m of members) {
    const node = new GuardianNode({
      id: m.id,
      dir: join(dir, `g${m.id}`),
      roster,
      port: base + m.id - 1,
      validate: () => ({ approve: true }),
    });
    await node.listen();
    nodes.push(node);
  }
});

afterAll(async () => {
  await Promise.all(nodes.map((n) => n.close()));
  rmSync(dir, { recursive: true, force: true });
});

const call = (i: number, type: MessageType, body: unknown, setVersion = 0): Promise<CallResult> =>
  callParty({
    url: roster.members[i]!.url,
    identity: coordinator,
    to: roster.members[i]!.identityKey,
    setVersion,
    type,
    body,
  });

const codeOf = (p: Promise<unknown>) =>
  p.then(
    () => 'accepted',
    (e: unknown) => (e instanceof RemoteError ? e.code : String(e)),
  );

describe('DKG against a lying coordinator', () => {
  it('a guardian refuses a round-1 package its sender did not sign', async () => {
    const r1 = await Promise.all([0, 1, 2].map((i) => call(i, 'dkg/round1', {})));
    // Guardian 2's package, re-signed by the coordinator as if it were guardian 2's answer.
    const payload = JSON.parse(r1[1]!.wire.payload) as {
      body: { package: { proofOfKnowledge: string } };
    };
    payload.body.package.proofOfKnowledge = '00'.repeat(64);
    const forged = { payload: JSON.stringify(payload), sig: r1[1]!.wire.sig };
    expect(await codeOf(call(0, 'dkg/round2', { round1: [forged, r1[2]!.wire] }))).toBe(
      'bad-signature',
    );
    // And a package signed by guardian 3 passed off as guardian 2's.
    expect(await codeOf(call(0, 'dkg/round2', { round1: [r1[2]!.wire, r1[2]!.wire] }))).toBe(
      'bad-signature',
    );
  });

  it('a guardian signs only the set its own DKG produced, and installs it only fully signed', async () => {
    const all = [0, 1, 2];
    const r1 = await Promise.all(all.map((i) => call(i, 'dkg/round1', {})));
    await Promise.all(
      all.map((i) =>
        call(i, 'dkg/round2', { round1: r1.filter((_, j) => j !== i).map((r) => r.wire) }),
      ),
    );
    const fin = await Promise.all(all.map((i) => call(i, 'dkg/finish', {})));
    const result = fin[0]!.payload.body as Pick<GuardianSetBody, 'frost' | 'groupKey'>;
    const body: GuardianSetBody = { ...roster, version: 1, ...result };
    const lies: GuardianSetBody[] = [
      {
        ...body,
        members: body.members.map((m) => (m.id === 3 ? { ...m, url: 'http://127.0.0.1:1' } : m)),
      },
      {
        ...body,
        t: 3,
        frost: {
          ...body.frost!,
          commitments: [...body.frost!.commitments, body.frost!.commitments[1]!],
        },
      },
      {
        ...body,
        frost: {
          ...body.frost!,
          verifyingShares: Object.fromEntries(
            Object.entries(body.frost!.verifyingShares).map(([k], i, arr) => [
              k,
              arr[(i + 1) % 3]![1],
            ]),
          ),
        },
      },
    ];
    for (const lie of lies) expect(await codeOf(call(0, 'set/sign', { set: lie }))).toBe('refused');
    const sigs = await Promise.all(all.map((i) => call(i, 'set/sign', { set: body })));
    const signatures = Object.fromEntries(
      all.map((i) => [String(i + 1), (sigs[i]!.payload.body as { signature: string }).signature]),
    );
    const set = verifySet({ ...body, signatures });
    const { '3': _dropped, ...two } = signatures;
    expect(await codeOf(call(0, 'set/install', { set: { ...set, signatures: two } }))).toBe(
      'refused',
    );
    expect(nodes[0]!.health().state).toBe('dkg');
    await Promise.all(all.map((i) => call(i, 'set/install', { set })));
    for (const node of nodes)
      expect(node.health()).toMatchObject({ state: 'ready', groupKey: set.groupKey });
    // Once it has a share, a guardian runs no second DKG.
    expect(await codeOf(call(0, 'dkg/round1', {}))).toBe('refused'); // set version 0 is gone
    expect(await codeOf(call(0, 'dkg/round1', {}, 1))).toBe('not-allowed');
  });
});

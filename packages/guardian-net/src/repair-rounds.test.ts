// A repair's messages between in-process guardians (no transport): t helpers rebuild a lost share
// that signs again; hostile pieces and sums are refused or name their sender.
import { describe, expect, it } from 'vitest';
import { dealSet } from '../test/guardian-dir';
import type { Json } from './canonical';
import { frost, frostIdentifier } from './frost';
import { newIdentity } from './identity';
import { RepairHelper, RepairTarget, type RepairSpec } from './repair-rounds';
import { parseMessageBody } from './messages';

/** A piece or a sum as a guardian takes it: parsed by the message table at the edge. */
const part = (body: unknown) => parseMessageBody('repair/piece', body);

const coordinator = newIdentity();
const net = dealSet(
  1,
  3,
  [1, 2, 3, 4, 5].map(() => newIdentity()),
  coordinator,
);
const spec: RepairSpec = { session: 'cd'.repeat(16), set: net.set, lost: 2, helpers: [1, 4, 5] };
const share = (id: number) => net.secrets[frostIdentifier(id)]!.signingShare;
const key = (id: number) => net.identities[id - 1]!.publicKey;

function helpers(s: RepairSpec = spec) {
  const hs = new Map(
    s.helpers.map((id) => [id, new RepairHelper(net.identities[id - 1]!, id, share(id), s)]),
  );
  const bodies = new Map([...hs].map(([id, h]) => [id, h.pieceBodies()]));
  return { hs, bodies };
}

function exchange(s: RepairSpec = spec) {
  const { hs, bodies } = helpers(s);
  for (const [i, out] of bodies)
    for (const [j, body] of out) hs.get(j)!.receivePiece(key(i), part(body));
  return hs;
}

describe('a repair among guardians', () => {
  it('rebuilds the lost share exactly, and it holds against the installed set’s commitments', () => {
    const hs = exchange();
    const target = new RepairTarget(net.identities[1]!, spec);
    for (const [id, h] of hs) target.receiveSum(key(id), part(h.sumBody()));
    const r = target.finish();
    if ('blame' in r) throw new Error(r.blame.why);
    expect(Buffer.from(r.signingShare).equals(Buffer.from(share(2)))).toBe(true);
    frost.validateSecret(
      { identifier: frostIdentifier(2), signingShare: Uint8Array.from(r.signingShare) },
      {
        signers: { min: 3, max: 5 },
        commitments: net.set.frost!.commitments.map((c) => Uint8Array.from(Buffer.from(c, 'hex'))),
        verifyingShares: {},
      },
    );
  });

  it('a piece that fails its own published points is refused naming its sender', () => {
    const { hs, bodies } = helpers();
    const body = bodies.get(4)!.get(1) as Record<string, Json>;
    // Guardian 4's box for guardian 5, delivered to guardian 1: it does not open there.
    const wrong = { ...body, box: (bodies.get(4)!.get(5) as Record<string, Json>).box };
    expect(() => hs.get(1)!.receivePiece(key(4), part(wrong))).toThrow(/guardian 4 does not open/);
    // Guardian 5's points sent as guardian 4's: they add up to another weighted share.
    const points5 = (bodies.get(5)!.get(1) as Record<string, Json>).points;
    expect(() => hs.get(1)!.receivePiece(key(4), part({ ...body, points: points5 }))).toThrow(
      /guardian 4 split something other than its own share/,
    );
    expect(() =>
      hs
        .get(1)!
        .receivePiece(key(4), part({ ...body, points: (body.points as string[]).slice(1) })),
    ).toThrow(/one point per helper/);
  });

  it('refuses forged, replayed, out-of-set and foreign-session messages', () => {
    const { hs, bodies } = helpers();
    const body = bodies.get(4)!.get(1) as Record<string, Json>;
    const h1 = hs.get(1)!;
    expect(() => h1.receivePiece(key(5), part(body))).toThrow(/signed by another key/);
    expect(() => h1.receivePiece(key(3), part({ ...body, from: 3 }))).toThrow(/no helper/);
    expect(() => h1.receivePiece(newIdentity().publicKey, part({ ...body, from: 9 }))).toThrow(
      /no helper/,
    );
    expect(() => h1.receivePiece(key(4), part({ ...body, session: 'ef'.repeat(16) }))).toThrow(
      /another repair/,
    );
    expect(() => h1.sumBody()).toThrow(/no repair piece yet from guardian 4, 5/);
    h1.receivePiece(key(4), part(body));
    expect(() => h1.receivePiece(key(4), part(body))).toThrow(/already sent/);
  });

  it('a wrong sum names its helper and no wrong share is ever returned', () => {
    const hs = exchange();
    const target = new RepairTarget(net.identities[1]!, spec);
    const sums = [...hs].map(([id, h]) => [id, h.sumBody() as Record<string, Json>] as const);
    // Helper 5 sends the sum of another run of the repair: it opens, but its points do not hold it.
    const other = exchange();
    const forged = { ...sums[2]![1], box: (other.get(5)!.sumBody() as Record<string, Json>).box };
    target.receiveSum(key(1), part(sums[0]![1]));
    target.receiveSum(key(4), part(sums[1]![1]));
    target.receiveSum(key(5), part(forged));
    expect(target.finish()).toEqual({
      blame: { guardian: 5, why: expect.stringMatching(/guardian 5 sent a repair sum/) },
    });
  });

  it('refuses a spec without t helpers, with the lost guardian helping, or from a non-member', () => {
    const t = net.identities[1]!;
    expect(() => new RepairTarget(t, { ...spec, helpers: [1, 4] })).toThrow(/3 distinct helpers/);
    expect(() => new RepairTarget(t, { ...spec, helpers: [1, 2, 4] })).toThrow(/cannot help/);
    expect(() => new RepairTarget(t, { ...spec, helpers: [1, 4, 6] })).toThrow(
      /guardian 6 is not a member/,
    );
    expect(() => new RepairTarget(net.identities[0]!, spec)).toThrow(/not the one being repaired/);
    expect(() => new RepairHelper(t, 1, share(1), spec)).toThrow(/no helper/);
  });
});

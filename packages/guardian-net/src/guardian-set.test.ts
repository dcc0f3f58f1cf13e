import { describe, expect, it } from 'vitest';
import { frost, frostIdentifier, groupKeyXOnly, publicToJson } from './frost';
import { signSet, verifySet, type GuardianSetBody } from './guardian-set';
import { newIdentity } from './identity';

const identities = [newIdentity(), newIdentity(), newIdentity()];
const coordinator = newIdentity();
const dealt = frost.trustedDealer({ min: 2, max: 3 }, [1, 2, 3].map(frostIdentifier));
const pub = publicToJson(dealt.public);
const body: GuardianSetBody = {
  kind: 'unit/guardian-set',
  version: 1,
  t: 2,
  n: 3,
  members: identities.map((id, i) => ({
    id: i + 1,
    name: `guardian-${i + 1}`,
    identityKey: id.publicKey,
    url: `http://127.0.0.1:${7401 + i}`,
  })),
  coordinators: [{ name: 'coordinator', identityKey: coordinator.publicKey }],
  frost: pub,
  groupKey: groupKeyXOnly(pub),
};
const signed = (b: GuardianSetBody = body) => ({
  ...b,
  signatures: Object.fromEntries(
    identities.map((id, i) => [String(i + 1), signSet(b, id.secretKey)]),
  ),
});

describe('the guardian set document', () => {
  it('verifies when every member signed it and its FROST package is consistent', () => {
    const set = verifySet(JSON.parse(JSON.stringify(signed())));
    expect(set.groupKey).toBe(body.groupKey);
    expect(verifySet(signed(), body.groupKey).version).toBe(1);
  });

  it('refuses a set pinned to another group key', () => {
    expect(() => verifySet(signed(), '00'.repeat(32))).toThrow(/another group key/);
  });

  it('refuses a change after signing (URL, threshold, verifying share)', () => {
    const s = signed();
    expect(() =>
      verifySet({
        ...s,
        members: s.members.map((m, i) => (i ? m : { ...m, url: 'http://evil:1' })),
      }),
    ).toThrow(/signature from guardian 1/);
    expect(() => verifySet({ ...s, t: 3 })).toThrow();
    const vs = {
      ...pub.verifyingShares,
      [frostIdentifier(2)]: pub.verifyingShares[frostIdentifier(3)]!,
    };
    expect(() => verifySet(signed({ ...body, frost: { ...pub, verifyingShares: vs } }))).toThrow(
      /verifying share of guardian 2/,
    );
  });

  it('refuses a missing member signature and duplicate identity keys', () => {
    const s = signed();
    expect(() =>
      verifySet({ ...s, signatures: { '1': s.signatures['1'], '2': s.signatures['2'] } }),
    ).toThrow(/guardian 3/);
    const dup = {
      ...body,
      members: body.members.map((m) => ({ ...m, identityKey: identities[0]!.publicKey })),
    };
    expect(() => verifySet(signed(dup))).toThrow(/distinct/);
  });
});

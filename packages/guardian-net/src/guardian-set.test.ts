import { describe, expect, it } from 'vitest';
import { frost, frostIdentifier, groupKeyXOnly, publicToJson } from './frost';
import {
  previousOf,
  signHandover,
  signSet,
  verifySet,
  verifySetChain,
  type GuardianSetBody,
} from './guardian-set';
import { newIdentity } from './identity';
import { rosterBody } from '../test/guardian-dir';

const identities = [newIdentity(), newIdentity(), newIdentity()];
const coordinator = newIdentity();
const dealt = frost.trustedDealer({ min: 2, max: 3 }, [1, 2, 3].map(frostIdentifier));
const pub = publicToJson(dealt.public);
const body: GuardianSetBody = {
  ...rosterBody(1, 2, identities, 7401, [
    { name: 'coordinator', identityKey: coordinator.publicKey },
  ]),
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
  it('verifies when its members signed it and its FROST package is consistent', () => {
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
    ).toThrow(/bad signature from guardian 1/);
    expect(() => verifySet({ ...s, t: 3 })).toThrow();
    const vs = {
      ...pub.verifyingShares,
      [frostIdentifier(2)]: pub.verifyingShares[frostIdentifier(3)]!,
    };
    expect(() => verifySet(signed({ ...body, frost: { ...pub, verifyingShares: vs } }))).toThrow(
      /verifying share of guardian 2/,
    );
  });

  it('is valid with t member signatures, not fewer; a DKG certificate needs all n', () => {
    const s = signed();
    const two = { ...s, signatures: { '1': s.signatures['1']!, '3': s.signatures['3']! } };
    expect(Object.keys(verifySet(two).signatures)).toEqual(['1', '3']);
    expect(() => verifySet(two, { everyMember: true })).toThrow(/2 of the 3 .*guardian 2/);
    expect(verifySet(s, { everyMember: true }).version).toBe(1);
    expect(() => verifySet({ ...s, signatures: { '2': s.signatures['2'] } })).toThrow(
      /1 of the 2 member signatures .*guardian 1, 3/,
    );
  });

  it('refuses a bad or stranger signature even beside t good ones, and duplicate identity keys', () => {
    const s = signed();
    // Guardian 3's signature under guardian 2's name: a bad signature, not an absent one.
    const swapped = { ...s.signatures, '2': s.signatures['3']! };
    expect(() => verifySet({ ...s, signatures: swapped })).toThrow(/bad signature from guardian 2/);
    for (const id of ['4', '0', '01', 'x'])
      expect(() =>
        verifySet({ ...s, signatures: { ...s.signatures, [id]: s.signatures['1'] } }),
      ).toThrow(/no member/);
    const dup = {
      ...body,
      members: body.members.map((m) => ({ ...m, identityKey: identities[0]!.publicKey })),
    };
    expect(() => verifySet(signed(dup))).toThrow(/distinct/);
  });

  it('binds a rotated set to the set it replaces: previous in the body, t handover signatures', () => {
    const v1 = verifySet(signed());
    // Version 1 names no previous set; version 2 must name version 1.
    expect(() => verifySet(signed({ ...body, previous: previousOf(v1) }))).toThrow(/version 2/);
    expect(() => verifySet(signed({ ...body, version: 2 }))).toThrow(/previous must name/);
    const dealt2 = frost.trustedDealer({ min: 2, max: 3 }, [1, 2, 3].map(frostIdentifier));
    const pub2 = publicToJson(dealt2.public);
    const body2: GuardianSetBody = {
      ...body,
      version: 2,
      frost: pub2,
      groupKey: groupKeyXOnly(pub2),
      previous: previousOf(v1),
    };
    const v2 = signed(body2);
    const handover: Record<string, string> = { '1': signHandover(body2, identities[0]!.secretKey) };
    expect(() => verifySet({ ...v2, handover }, { previous: v1 })).toThrow(/1 of the 2/);
    handover['3'] = signHandover(body2, identities[2]!.secretKey);
    expect(verifySetChain(v1.groupKey!, [v1, { ...v2, handover }]).groupKey).toBe(body2.groupKey);
    // A set signature is no handover signature (another tag), and another set 1 is not its previous.
    const setSig = { '1': handover['1'], '3': v2.signatures['3']! };
    expect(() => verifySet({ ...v2, handover: setSig }, { previous: v1 })).toThrow(/guardian 3/);
    const other = signed({ ...body, coordinators: [] });
    expect(() => verifySet({ ...v2, handover }, { previous: other })).toThrow(/another set 1/);
  });
});

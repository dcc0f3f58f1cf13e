// A resharing's messages between in-process guardians (no transport): a member is replaced and the
// group key stays; each hostile deal is refused before any work or names its dealer; the
// coordinator's judgement of a blame holds only on proof.
import { describe, expect, it } from 'vitest';
import { schnorr } from '@noble/curves/secp256k1.js';
import { dealSet, rosterBody } from '../test/guardian-dir';
import { hexToBytes, type Json } from './canonical';
import { frost, frostIdentifier } from './frost';
import type { GuardianSetBody } from './guardian-set';
import { newIdentity, type Identity } from './identity';
import { dealBodies, ReshareRecipient, type ReshareSpec } from './reshare-rounds';
import { judgeDeal } from './reshare-deals';
import { parseMessageBody } from './messages';

/** A deal as a guardian takes it: parsed by the message table at the edge. */
const deal = (body: unknown) => parseMessageBody('reshare/deal', body);

const coordinator = newIdentity();
const old = dealSet(1, 2, [newIdentity(), newIdentity(), newIdentity()], coordinator);
const newcomer = newIdentity();
/** Seat 2 goes to a new identity: guardian 2 leaves, the newcomer joins with id 2. */
const nextIdentities = [old.identities[0]!, newcomer, old.identities[2]!];
const next: GuardianSetBody = rosterBody(2, 2, nextIdentities, 42_000, old.set.coordinators);
const spec: ReshareSpec = {
  session: 'ab'.repeat(16),
  current: old.set,
  next,
  dealers: [1, 3],
};
const shareOf = (id: number) => old.secrets[frostIdentifier(id)]!.signingShare;

function allDeals(tamper?: Parameters<typeof dealBodies>[4]) {
  return spec.dealers.map((d) => ({
    d,
    bodies: dealBodies(old.identities[d - 1]!, d, shareOf(d), spec, d === 3 ? tamper : undefined),
  }));
}

function recipient(k: Identity, deals: ReturnType<typeof allDeals>, newId: number) {
  const r = new ReshareRecipient(k, spec);
  for (const { d, bodies } of deals)
    r.receive(old.identities[d - 1]!.publicKey, deal(bodies.get(newId)));
  return r;
}

describe('a resharing among guardians', () => {
  it('replaces a member: the new shares sign under the same group key', () => {
    const deals = allDeals();
    const results = nextIdentities.map((k, i) => recipient(k, deals, i + 1).finish());
    const done = results.map((r) => {
      if ('blame' in r) throw new Error(r.blame.why);
      return r;
    });
    expect(done.every((r) => r.public.commitments[0] === old.set.frost!.commitments[0])).toBe(true);
    expect(new Set(done.map((r) => JSON.stringify(r.public))).size).toBe(1);
    // The newcomer (2) and guardian 3 sign; the signature verifies under the installed key.
    const msg = schnorr.utils.taggedHash('unit/reshare-rounds', new Uint8Array([1]));
    const signers = [2, 3].map((id) => ({
      identifier: frostIdentifier(id),
      signingShare: Uint8Array.from(done[id - 1]!.signingShare),
    }));
    const pub = done[0]!.frost;
    const r1 = signers.map((s) => frost.commit(s));
    const list = r1.map((r) => r.commitments);
    const sig = frost.aggregate(
      pub,
      list,
      msg,
      Object.fromEntries(
        signers.map((s, i) => [s.identifier, frost.signShare(s, pub, r1[i]!.nonces, list, msg)]),
      ),
    );
    expect(schnorr.verify(sig, msg, hexToBytes(old.set.groupKey!))).toBe(true);
    // The departed guardian's old share with a new one is no signing pair of the new set.
    const oldShare = { identifier: frostIdentifier(2), signingShare: shareOf(2) };
    expect(() => frost.validateSecret(oldShare, pub)).toThrow();
  });

  it('a bad sub-share names its dealer, and the recipient keeps nothing', () => {
    const deals = allDeals((s, to) =>
      to === 2 ? Uint8Array.from(s.map((b, i) => (i === 31 ? b ^ 1 : b))) : s,
    );
    const r = recipient(newcomer, deals, 2).finish();
    expect(r).toEqual({
      blame: { guardian: 3, why: expect.stringMatching(/guardian 3 sent a sub-share/), key: expect.stringMatching(/^[0-9a-f]{64}$/) }, // prettier-ignore
    });
    // Another recipient's deals from 3 are fine.
    expect('blame' in recipient(old.identities[0]!, deals, 1).finish()).toBe(false);
  });

  it('a sub-share sealed to another recipient does not open, and names its dealer', () => {
    const deals = allDeals();
    const r = new ReshareRecipient(newcomer, spec);
    r.receive(old.identities[0]!.publicKey, deal(deals[0]!.bodies.get(2)));
    r.receive(old.identities[2]!.publicKey, deal(deals[1]!.bodies.get(1)));
    expect(r.finish()).toEqual({
      blame: { guardian: 3, why: expect.stringMatching(/does not open/), key: expect.stringMatching(/^[0-9a-f]{64}$/) }, // prettier-ignore
    });
  });

  it('refuses forged, replayed, out-of-set, foreign-session and malformed deals', () => {
    const deals = allDeals();
    const body = deals[0]!.bodies.get(2) as Record<string, Json>;
    const r = new ReshareRecipient(newcomer, spec);
    const k1 = old.identities[0]!.publicKey;
    // Signed by guardian 3's key but naming dealer 1: a forgery.
    expect(() => r.receive(old.identities[2]!.publicKey, deal(body))).toThrow(
      /signed by another key/,
    );
    // Guardian 2 is in the set but deals in no resharing here; a stranger is in no set.
    expect(() => r.receive(old.identities[1]!.publicKey, deal({ ...body, dealer: 2 }))).toThrow(
      /no dealer/,
    );
    expect(() => r.receive(newIdentity().publicKey, deal({ ...body, dealer: 9 }))).toThrow(
      /no dealer/,
    );
    expect(() => r.receive(k1, deal({ ...body, session: 'cd'.repeat(16) }))).toThrow(
      /another resharing/,
    );
    expect(() => r.receive(k1, deal({ ...body, commitments: ['02'.padEnd(66, '0')] }))).toThrow(
      /commits to 2/,
    );
    expect(() =>
      r.receive(k1, deal({ ...body, commitments: ['04'.repeat(33), '02'.repeat(33)] })),
    ).toThrow(/not a curve point/);
    expect(() => r.finish()).toThrow(/no deal yet from guardian 1, 3/);
    r.receive(k1, deal(body));
    expect(() => r.receive(k1, deal(body))).toThrow(/already dealt/);
  });

  it('refuses a spec with fewer than t dealers, a bad session, or a guardian outside the roster', () => {
    expect(() => new ReshareRecipient(newcomer, { ...spec, dealers: [1] })).toThrow(/2 distinct/);
    expect(() => new ReshareRecipient(newcomer, { ...spec, dealers: [1, 1] })).toThrow(
      /2 distinct/,
    );
    expect(() => new ReshareRecipient(newcomer, { ...spec, dealers: [1, 4] })).toThrow(/dealer 4/);
    expect(() => new ReshareRecipient(newcomer, { ...spec, session: 'x' })).toThrow(/16 bytes/);
    expect(() => new ReshareRecipient(old.identities[1]!, spec)).toThrow(/not in the next roster/);
  });
});

describe("the coordinator's judgement of a member's blame (reshare-deals.ts)", () => {
  const flip = (s: Uint8Array) => Uint8Array.from(s.map((b, i) => (i === 31 ? b ^ 1 : b)));
  const member2 = next.members[1]!;
  const judge = (deals: ReturnType<typeof allDeals>, key: unknown) =>
    judgeDeal(old.set, spec.dealers, next.t, member2, deal(deals[1]!.bodies.get(2)), key);

  it('proves a bad sub-share by the revealed key; an honest one, or another key, proves nothing', () => {
    const bad = allDeals((s, to) => (to === 2 ? flip(s) : s));
    const { blame } = recipient(newcomer, bad, 2).finish() as { blame: { key: string } };
    expect(judge(bad, blame.key)).toBe('proven');
    // The same accusation of guardian 3's honest deal (the key of that pair and session is the same).
    expect(judge(allDeals(), blame.key)).toBe('the sub-share holds against its commitments');
    expect(judge(bad, 'ff'.repeat(32))).toBe('the sub-share does not open under the revealed key');
    expect(judge(bad, 'not hex')).toBe('the revealed key is malformed');
  });

  it('proves commitments that are not the dealer’s own weighted share, whatever the key', () => {
    const other = spec.dealers.map((d) => ({
      d,
      bodies: dealBodies(old.identities[d - 1]!, d, d === 3 ? shareOf(1) : shareOf(d), spec),
    }));
    expect(judge(other, 'ff'.repeat(32))).toBe('proven');
  });
});

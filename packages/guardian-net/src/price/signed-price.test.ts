// A guardian's signed price: bound to its id, the set version, the price and the stamp, verified
// against the published set's identity keys; and the hash a quote commits to.
import { describe, expect, it } from 'vitest';
import { bytesToHex, canonicalJson, taggedDigest, type Json } from '../canonical';
import type { GuardianSetBody } from '../guardian-set';
import { newIdentity } from '../identity';
import { rosterBody } from '../../test/guardian-dir';
import {
  parseSignedPrice,
  priceQuorumCommitment,
  signedPriceProblem,
  signPrice,
} from './signed-price';
import { liquidationDecision } from './liquidation';

const ids = [newIdentity(), newIdentity(), newIdentity()];
const set: GuardianSetBody = rosterBody(1, 2, ids, 7401, []);
const fields = { guardian: 2, setVersion: 1, priceCents: 9_500_000, time: 1_800_000_000 };

describe('a guardian’s signed price', () => {
  it('verifies under its own identity key in the set', () => {
    const p = signPrice(ids[1]!.secretKey, fields);
    expect(signedPriceProblem(set, parseSignedPrice(JSON.parse(JSON.stringify(p))))).toBeNull();
  });

  it('is refused when any field changed, another guardian signed it, or for another set', () => {
    const p = signPrice(ids[1]!.secretKey, fields);
    const bad = 'price signature does not verify';
    expect(signedPriceProblem(set, { ...p, priceCents: p.priceCents - 1 })).toBe(bad);
    expect(signedPriceProblem(set, { ...p, time: p.time + 1 })).toBe(bad);
    expect(signedPriceProblem(set, { ...p, guardian: 1 })).toBe(bad);
    expect(signedPriceProblem(set, signPrice(ids[0]!.secretKey, fields))).toBe(bad);
    expect(signedPriceProblem(set, { ...p, guardian: 4 })).toBe('guardian 4 is not in the set');
    expect(
      signedPriceProblem(set, signPrice(ids[1]!.secretKey, { ...fields, setVersion: 2 })),
    ).toBe('signed for set version 2');
  });

  it('parses only its exact shape from an untrusted party', () => {
    const p = signPrice(ids[1]!.secretKey, fields);
    for (const raw of [
      null,
      { ...p, extra: 1 },
      { ...p, priceCents: 0 },
      { ...p, priceCents: 1.5 },
      { ...p, priceCents: '9500000' },
      { ...p, sig: p.sig.toUpperCase() },
      { ...p, guardian: 70_000 },
    ])
      expect(() => parseSignedPrice(raw)).toThrow('not a signed price');
  });

  it('a quorum commitment names exactly the prices used, in any order', () => {
    const a = signPrice(ids[0]!.secretKey, { ...fields, guardian: 1 });
    const b = signPrice(ids[1]!.secretKey, fields);
    const c = signPrice(ids[2]!.secretKey, { ...fields, guardian: 3 });
    expect(priceQuorumCommitment([a, b])).toBe(priceQuorumCommitment([b, a]));
    expect(priceQuorumCommitment([a, b])).not.toBe(priceQuorumCommitment([a, c]));
    expect(priceQuorumCommitment([a, b])).toMatch(/^[0-9a-f]{64}$/);
    // The one implementation (@unit/bitcoin's) hashes exactly this package's canonical JSON.
    const text = canonicalJson([a, b] as unknown as Json);
    expect(text).toMatch(
      /^\[\{"guardian":1,"priceCents":\d+,"setVersion":\d+,"sig":"[0-9a-f]+","time":\d+\},/,
    );
    expect(priceQuorumCommitment([b, a])).toBe(
      bytesToHex(taggedDigest('unit/price-quorum', new TextEncoder().encode(text))),
    );
  });
});

describe('a guardian’s liquidation decision, on its own price only', () => {
  const own = (priceCents: number) => ({
    fresh: true as const,
    price: signPrice(ids[0]!.secretKey, { ...fields, guardian: 1, priceCents }),
  });
  const liquidation = { kind: 'liquidation', thresholdCents: 9_000_000 };

  it('approves at or under the threshold and refuses above it, naming both prices', () => {
    expect(liquidationDecision(liquidation, own(9_000_000))).toEqual({ approve: true });
    expect(liquidationDecision(liquidation, own(8_550_000))).toEqual({ approve: true });
    expect(liquidationDecision(liquidation, own(9_000_001))).toEqual({
      approve: false,
      reason: "this guardian's price $90,000.01 is above the threshold $90,000.00",
    });
  });

  it('refuses without a fresh price, without feeds, and without a valid threshold', () => {
    expect(liquidationDecision(liquidation, { fresh: false, reason: 'price is 61 s old' })).toEqual(
      { approve: false, reason: 'this guardian has no fresh price (price is 61 s old)' },
    );
    expect(liquidationDecision(liquidation, null)).toEqual({
      approve: false,
      reason: 'this guardian has no price feeds',
    });
    for (const thresholdCents of [0, -1, 1.5, '9000000', undefined])
      expect(liquidationDecision({ kind: 'liquidation', thresholdCents }, own(1))).toMatchObject({
        approve: false,
      });
  });

  it('leaves any other request to the rest of the policy', () => {
    expect(liquidationDecision({ kind: 'manual' }, own(1))).toBeNull();
    expect(liquidationDecision(undefined, null)).toBeNull();
  });
});

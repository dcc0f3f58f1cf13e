// The split aggregation (aggregate.ts) against noble's own `aggregate`: the same 64 bytes for any
// t signers, group keys of either y parity, and a signature that verifies by BIP-340; a bad share
// gives a signature that does not.
import { describe, expect, it } from 'vitest';
import { schnorr } from '@noble/curves/secp256k1.js';
import type { DealerShares } from '@noble/curves/abstract/frost.js';
import { groupCommitmentX, signatureOf } from './aggregate';
import { bytesToHex, hexToBytes } from './canonical';
import { frost, frostIdentifier, groupKeyXOnly, publicToJson } from './frost';

const ids = [1, 2, 3, 4, 5].map(frostIdentifier);

function round(d: DealerShares, signers: string[], msg: Uint8Array) {
  const round1 = signers.map((id) => ({ id, ...frost.commit(d.secretShares[id]!) }));
  const list = round1.map((r) => r.commitments);
  const shares = round1.map((r) =>
    frost.signShare(d.secretShares[r.id]!, d.public, r.nonces, list, msg),
  );
  return { list, shares };
}

describe('aggregation split around round 2', () => {
  it('gives noble’s signature byte for byte, for keys of either parity and any t signers', () => {
    const parities = new Set<string>();
    for (let i = 0; i < 12; i++) {
      const [t, n] = i % 2 === 0 ? [2, 3] : [3, 5];
      const d = frost.trustedDealer({ min: t, max: n }, ids.slice(0, n));
      const groupKey = groupKeyXOnly(publicToJson(d.public));
      parities.add(bytesToHex(d.public.commitments[0]!).slice(0, 2));
      const msg = schnorr.utils.randomSecretKey();
      // The last t of the n, in reverse: the order the coordinator lists them in does not matter.
      const signers = ids.slice(n - t, n).reverse();
      const { list, shares } = round(d, signers, msg);
      const ours = signatureOf(groupCommitmentX(groupKey, list, msg), shares);
      const theirs = frost.aggregate(
        d.public,
        list,
        msg,
        Object.fromEntries(signers.map((id, k) => [id, shares[k]!])),
      );
      expect(bytesToHex(ours)).toBe(bytesToHex(theirs));
      expect(schnorr.verify(ours, msg, hexToBytes(groupKey))).toBe(true);
    }
    expect([...parities].sort()).toEqual(['02', '03']);
  });

  it('a bad share makes a signature that BIP-340 refuses', () => {
    const d = frost.trustedDealer({ min: 2, max: 3 }, ids.slice(0, 3));
    const groupKey = groupKeyXOnly(publicToJson(d.public));
    const msg = schnorr.utils.randomSecretKey();
    const { list, shares } = round(d, ids.slice(0, 2), msg);
    const bad = signatureOf(groupCommitmentX(groupKey, list, msg), [
      shares[0]!,
      frost.utils.randomScalar(),
    ]);
    expect(schnorr.verify(bad, msg, hexToBytes(groupKey))).toBe(false);
  });
});

// A guardian's share (sign-share.ts) against noble's own `signShare`: the same 32 bytes for group
// keys and group commitments of either y parity and any t signers, a signature that verifies by
// BIP-340 once aggregated, and nonces that cannot sign twice.
import { describe, expect, it } from 'vitest';
import { schnorr } from '@noble/curves/secp256k1.js';
import { groupCommitment, groupCommitmentX, signatureOf } from './aggregate';
import { bytesToHex, hexToBytes } from './canonical';
import { frost, frostIdentifier, groupKeyXOnly, publicToJson } from './frost';
import { shareKey, signShare } from './sign-share';

const ids = [1, 2, 3, 4, 5].map(frostIdentifier);
const copy = (n: { hiding: Uint8Array; binding: Uint8Array }) => ({
  hiding: n.hiding.slice(),
  binding: n.binding.slice(),
});

describe('a guardian’s signature share', () => {
  it('is noble’s share byte for byte, for keys and commitments of either parity', () => {
    const keyParities = new Set<string>();
    const rParities = new Set<boolean>();
    for (let i = 0; i < 24; i++) {
      const [t, n] = i % 3 === 0 ? [3, 5] : [2, 3];
      const d = frost.trustedDealer({ min: t, max: n }, ids.slice(0, n));
      const groupKey = groupKeyXOnly(publicToJson(d.public));
      keyParities.add(bytesToHex(d.public.commitments[0]!).slice(0, 2));
      const msg = schnorr.utils.randomSecretKey();
      const signers = ids.slice(n - t, n).reverse();
      const round1 = signers.map((id) => ({ id, ...frost.commit(d.secretShares[id]!) }));
      const list = round1.map((r) => r.commitments);
      rParities.add(groupCommitment(groupKey, list, msg).R.y % 2n === 0n);
      const signed = round1.map((r) =>
        signShare(shareKey(d.secretShares[r.id]!, d.public), copy(r.nonces), list, msg),
      );
      const ours = signed.map((s) => s.share);
      const rx = groupCommitmentX(groupKey, list, msg);
      for (const s of signed) expect(bytesToHex(s.rx)).toBe(bytesToHex(rx));
      const theirs = round1.map((r) =>
        frost.signShare(d.secretShares[r.id]!, d.public, copy(r.nonces), list, msg),
      );
      expect(ours.map(bytesToHex)).toEqual(theirs.map(bytesToHex));
      const signature = signatureOf(rx, ours);
      expect(schnorr.verify(signature, msg, hexToBytes(groupKey))).toBe(true);
    }
    expect([...keyParities].sort()).toEqual(['02', '03']);
    expect([...rParities].sort()).toEqual([false, true]);
  });

  it('spends its nonces: the same pair cannot sign again', () => {
    const d = frost.trustedDealer({ min: 2, max: 3 }, ids.slice(0, 3));
    const round1 = ids.slice(0, 2).map((id) => ({ id, ...frost.commit(d.secretShares[id]!) }));
    const list = round1.map((r) => r.commitments);
    const key = shareKey(d.secretShares[ids[0]!]!, d.public);
    const msg = schnorr.utils.randomSecretKey();
    signShare(key, round1[0]!.nonces, list, msg);
    expect(() => signShare(key, round1[0]!.nonces, list, msg)).toThrow(/already used/);
  });

  it('refuses a list without this guardian, or with a signer twice', () => {
    const d = frost.trustedDealer({ min: 2, max: 3 }, ids.slice(0, 3));
    const round1 = ids.slice(0, 3).map((id) => ({ id, ...frost.commit(d.secretShares[id]!) }));
    const key = shareKey(d.secretShares[ids[0]!]!, d.public);
    const msg = schnorr.utils.randomSecretKey();
    const others = [round1[1]!.commitments, round1[2]!.commitments];
    expect(() => signShare(key, copy(round1[0]!.nonces), others, msg)).toThrow(/missing/);
    const twice = [round1[0]!.commitments, { ...round1[1]!.commitments, identifier: ids[0]! }];
    expect(() => signShare(key, copy(round1[0]!.nonces), twice, msg)).toThrow(/distinct/);
  });
});

// A guardian's round-2 signature share (RFC 9591 section 5.2, the secp256k1-TR suite), the same
// scalar as noble's `signShare` (sign-share.test.ts compares them byte for byte), without the two
// constant-time base-point multiplications noble spends to recompute this guardian's own
// commitments from its nonces: signing-rounds.ts checks the list's entry against the commitments
// it recorded when it issued the nonce, which were computed from the same nonce pair. Everything
// else is noble's computation: the group commitment and binding factors (aggregate.ts), the
// Lagrange coefficient, the BIP-340 challenge, and the suite's even-y adjustments of the share, the
// nonces and the group key. Those two multiplications were about half of a guardian's CPU per
// co-signing. Its own term of R, D_i + ρ_i·E_i, is (d_i + ρ_i·e_i)·G: one constant-time
// multiplication of the base point (precomputed) instead of one of an arbitrary point.
import type { FrostPublic, FrostSecret, NonceCommitments } from '@noble/curves/abstract/frost.js';
import { schnorr, secp256k1 } from '@noble/curves/secp256k1.js';
import { bytesToNumberBE } from '@noble/curves/utils.js';
import { concatBytes } from '@noble/hashes/utils.js';
import { groupCommitment } from './aggregate';
import { bytesToHex, parseHex } from './canonical';

const Point = secp256k1.Point;
const Fn = Point.Fn;

/** One guardian's share of one set, with what each signing needs of it computed once. */
export interface ShareKey {
  identifier: string;
  id: bigint;
  /** the signing share, negated when the group key has an odd y (the suite's even-y key) */
  secret: bigint;
  /** the group key, x-only hex */
  groupKey: string;
  groupKeyX: Uint8Array;
}

export function shareKey(secret: FrostSecret, pub: FrostPublic): ShareKey {
  const vk = Point.fromBytes(pub.commitments[0]!);
  const s = Fn.fromBytes(secret.signingShare);
  const groupKeyX = vk.toBytes(true).subarray(1);
  return {
    identifier: secret.identifier,
    id: Fn.fromBytes(parseHex(secret.identifier, 32, 'identifier')),
    secret: vk.y % 2n === 0n ? s : Fn.neg(s),
    groupKey: bytesToHex(groupKeyX),
    groupKeyX,
  };
}

/** λ_i for the signers `ids` (RFC 9591 section 4.2). */
export function lagrange(ids: bigint[], id: bigint): bigint {
  if (new Set(ids).size !== ids.length || !ids.includes(id))
    throw new Error('signers must be distinct and include this guardian');
  let num = Fn.ONE;
  let den = Fn.ONE;
  for (const x of ids) {
    if (x === id) continue;
    num = Fn.mul(num, x);
    den = Fn.mul(den, Fn.sub(x, id));
  }
  return Fn.div(num, den);
}

/**
 * z_i = d_i + e_i·ρ_i + λ_i·s_i·c (nonces negated when R has an odd y), and R's x coordinate, which
 * the guardian sends beside its share: the coordinator uses it when the chosen guardians agree on
 * it, instead of computing R a third time, and checks the signature it makes (coordinator.ts). The
 * caller has checked that `commitments` carries this guardian's commitment to `nonces`, and spends
 * the nonces once: their bytes are zeroed here, as noble does, so a second use fails.
 */
export function signShare(
  key: ShareKey,
  nonces: { hiding: Uint8Array; binding: Uint8Array },
  commitments: NonceCommitments[],
  message: Uint8Array,
): { share: Uint8Array; rx: Uint8Array } {
  let d = Fn.fromBytes(nonces.hiding);
  let e = Fn.fromBytes(nonces.binding);
  if (Fn.is0(d) || Fn.is0(e)) throw new Error('signing nonces already used');
  // Its own commitments are d·G and e·G (the caller checked the list's entry against them).
  const [hiding, binding] = [d, e];
  const own = {
    identifier: key.identifier,
    term: (rho: bigint) => Point.BASE.multiply(Fn.add(hiding, Fn.mul(binding, rho))),
  };
  const { R, ids, factors } = groupCommitment(key.groupKey, commitments, message, own);
  const rho = factors.get(key.identifier);
  if (rho === undefined) throw new Error('missing signer commitment');
  const lambda = lagrange(ids, key.id);
  const rx = R.toBytes(true).subarray(1);
  const c = Fn.create(
    bytesToNumberBE(
      schnorr.utils.taggedHash('BIP0340/challenge', concatBytes(rx, key.groupKeyX, message)),
    ),
  );
  if (R.y % 2n !== 0n) {
    d = Fn.neg(d);
    e = Fn.neg(e);
  }
  const z = Fn.add(Fn.add(d, Fn.mul(e, rho)), Fn.mul(Fn.mul(lambda, key.secret), c));
  nonces.hiding.fill(0);
  nonces.binding.fill(0);
  return { share: Fn.toBytes(z), rx };
}

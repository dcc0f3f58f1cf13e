// FROST's check of one signature share (RFC 9591 section 5.4, the secp256k1-TR suite), for every
// share of a session at the cost of one group commitment: noble's `verifyShare` recomputes the
// binding factors and R for each share it checks. With R and the binding factors ρ_i of the
// session (aggregate.ts), the BIP-340 challenge c and the Lagrange coefficient λ_i, a share z_i of
// guardian i (commitments D_i, E_i, verifying share Y_i) is good when
//   z_i·G = r·(D_i + ρ_i·E_i) + k·λ_i·c·Y_i
// where r = -1 when R has an odd y (the signers negated their nonces) and k = -1 when the group
// key has an odd y (they negated their shares), else 1: what sign-share.ts computes, in points.
// All of it is public, so variable-time arithmetic. verify-share.test.ts compares it with noble's.
import type { FrostPublic, NonceCommitments } from '@noble/curves/abstract/frost.js';
import { schnorr, secp256k1 } from '@noble/curves/secp256k1.js';
import { bytesToNumberBE } from '@noble/curves/utils.js';
import { concatBytes } from '@noble/hashes/utils.js';
import { groupCommitment } from './aggregate';
import { bytesToHex, parseHex } from './canonical';
import { lagrange } from './sign-share';

const Point = secp256k1.Point;
const Fn = Point.Fn;

/** A checker of the shares of one session: `ok(identifier, share)`. */
export function shareChecker(
  pub: FrostPublic,
  commitments: NonceCommitments[],
  message: Uint8Array,
): (identifier: string, share: Uint8Array) => boolean {
  const vk = Point.fromBytes(pub.commitments[0]!);
  const groupKeyX = vk.toBytes(true).subarray(1);
  const { R, ids, factors } = groupCommitment(bytesToHex(groupKeyX), commitments, message);
  const rx = R.toBytes(true).subarray(1);
  const c = Fn.create(
    bytesToNumberBE(
      schnorr.utils.taggedHash('BIP0340/challenge', concatBytes(rx, groupKeyX, message)),
    ),
  );
  const r = R.y % 2n === 0n ? Fn.ONE : Fn.neg(Fn.ONE);
  const k = vk.y % 2n === 0n ? Fn.ONE : Fn.neg(Fn.ONE);
  const byId = new Map(commitments.map((x) => [x.identifier, x]));
  return (identifier, share) => {
    try {
      const own = byId.get(identifier);
      const rho = factors.get(identifier);
      const verifying = pub.verifyingShares[identifier];
      if (!own || rho === undefined || !verifying || share.length !== 32) return false;
      const z = bytesToNumberBE(share);
      if (z >= Fn.ORDER) return false;
      const id = Fn.fromBytes(parseHex(own.identifier, 32, 'identifier'));
      const term = Point.fromBytes(own.hiding).add(Point.fromBytes(own.binding).multiply(rho));
      const lambda = lagrange(ids, id);
      const expected = term
        .multiply(r)
        .add(Point.fromBytes(verifying).multiply(Fn.mul(Fn.mul(k, lambda), c)));
      const left = z === 0n ? Point.ZERO : Point.BASE.multiply(z);
      return left.equals(expected);
    } catch {
      return false;
    }
  };
}

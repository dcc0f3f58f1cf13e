// The coordinator's FROST aggregation in two halves, so the costly one overlaps the guardians' work.
// The group commitment R (RFC 9591 sections 4.4 and 4.5: binding factors, then the sum of each
// signer's hiding commitment and binding commitment times its factor) needs only the message and
// round 1's commitments, so it is computed while the guardians compute their shares; once the
// shares are in, the signature is R's x coordinate and the shares' sum (section 5.3, BIP-340
// encoding of the secp256k1-TR suite). noble's `aggregate` does both halves at the end and checks
// the result by the BIP-340 equation; here the caller checks it, once (aggregate.test.ts compares
// both byte for byte).
import type { NonceCommitments } from '@noble/curves/abstract/frost.js';
import { mulAddUnsafe } from '@noble/curves/abstract/curve.js';
import { secp256k1, secp256k1_hasher } from '@noble/curves/secp256k1.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { concatBytes, utf8ToBytes } from '@noble/hashes/utils.js';
import { parseHex } from './canonical';

const SUITE = 'FROST-secp256k1-SHA256-TR-v1';
const RHO = utf8ToBytes(`${SUITE}rho`);
const MSG = utf8ToBytes(`${SUITE}msg`);
const COM = utf8ToBytes(`${SUITE}com`);
const Point = secp256k1.Point;
const Fn = Point.Fn;

/** Round 1's commitments of one signing, parsed and sorted by identifier (RFC 9591, 4.3). */
export interface GroupCommitment {
  /** R, before the suite's even-y adjustment */
  R: InstanceType<typeof Point>;
  /** the signers' identifiers as scalars, sorted */
  ids: bigint[];
  /** each signer's binding factor, by identifier (hex) */
  factors: Map<string, bigint>;
}

/**
 * A signer's own term of R, D_i + ρ_i·E_i, from its nonces: (d_i + ρ_i·e_i)·G, one constant-time
 * base-point multiplication where the sum costs a multiplication of an arbitrary point and two
 * point decodings (sign-share.ts).
 */
export interface OwnTerm {
  identifier: string;
  term: (rho: bigint) => InstanceType<typeof Point>;
}

/**
 * The group commitment R for signing `message` with these commitments, under the group key
 * (x-only hex; the suite takes it with even y), and the binding factors it was made with: all of
 * it from public values, so by variable-time arithmetic (noble's FROST does the same), except a
 * signer's `own` term, which its nonces give.
 */
export function groupCommitment(
  groupKey: string,
  commitments: NonceCommitments[],
  message: Uint8Array,
  own?: OwnTerm,
): GroupCommitment {
  const list = commitments
    .map((c) => {
      const mine = c.identifier === own?.identifier;
      const hiding = mine ? null : Point.fromBytes(c.hiding);
      const binding = mine ? null : Point.fromBytes(c.binding);
      if (hiding?.equals(Point.ZERO) || binding?.equals(Point.ZERO))
        throw new Error('infinity commitment');
      return {
        identifier: c.identifier,
        id: Fn.fromBytes(parseHex(c.identifier, 32, 'identifier')),
        hiding,
        binding,
        bytes: [hiding?.toBytes() ?? c.hiding, binding?.toBytes() ?? c.binding],
      };
    })
    .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const encoded = sha256(concatBytes(COM, ...list.flatMap((c) => [Fn.toBytes(c.id), ...c.bytes])));
  const rhoPrefix = concatBytes(
    parseHex(`02${groupKey}`, 33, 'group key'),
    sha256(concatBytes(MSG, message)),
    encoded,
  );
  const factors = list.map((c) =>
    secp256k1_hasher.hashToScalar(concatBytes(rhoPrefix, Fn.toBytes(c.id)), { DST: RHO }),
  );
  let R = Point.ZERO;
  const points: InstanceType<typeof Point>[] = [];
  const scalars: bigint[] = [];
  list.forEach((c, i) => {
    if (c.hiding === null || c.binding === null) {
      R = R.add(own!.term(factors[i]!));
      return;
    }
    R = R.add(c.hiding);
    points.push(c.binding);
    scalars.push(factors[i]!);
  });
  if (points.length > 0) R = R.add(mulAddUnsafe(Point, points, scalars));
  return {
    R,
    ids: list.map((c) => c.id),
    factors: new Map(list.map((c, i) => [c.identifier, factors[i]!])),
  };
}

/** The x coordinate of the group commitment R (groupCommitment). */
export function groupCommitmentX(
  groupKey: string,
  commitments: NonceCommitments[],
  message: Uint8Array,
): Uint8Array {
  return groupCommitment(groupKey, commitments, message).R.toBytes(true).subarray(1);
}

/** The BIP-340 signature of R (x coordinate) and the signers' shares. */
export function signatureOf(rx: Uint8Array, shares: Uint8Array[]): Uint8Array {
  let z = Fn.ZERO;
  for (const share of shares) z = Fn.add(z, Fn.fromBytes(share));
  return concatBytes(rx, Fn.toBytes(z));
}

// A guardian's own price, signed by its identity key (BIP-340) over a tagged hash of its id, the
// set version, the price in cents and its stamp, so a price cannot be passed off as another
// guardian's, another set's or another moment's. A quorum of them is committed to by one hash.
import { schnorr } from '@noble/curves/secp256k1.js';
import * as z from 'zod';
import { priceQuorumCommitment as recordCommitment } from '@unit/bitcoin';
import { bytesToHex, parseHex, taggedDigest } from '../canonical';
import type { GuardianSetBody } from '../guardian-set';

export const PRICE_TAG = 'unit/guardian-price';
export { PRICE_QUORUM_TAG } from '@unit/bitcoin';

export interface PriceFields {
  guardian: number;
  setVersion: number;
  /** USD cents per BTC */
  priceCents: number;
  /** unix seconds */
  time: number;
}

export interface SignedPrice extends PriceFields {
  /** BIP-340 by the guardian's identity key over priceDigest(fields), hex */
  sig: string;
}

const u = (max: number) => z.number().int().min(0).max(max);
const signedPriceShape = z.strictObject({
  guardian: u(0xffff).min(1),
  setVersion: u(0xffff_ffff),
  priceCents: u(Number.MAX_SAFE_INTEGER).min(1),
  time: u(Number.MAX_SAFE_INTEGER),
  sig: z.string().regex(/^[0-9a-f]{128}$/),
});

/** The 32 bytes a guardian signs: u16 id, u32 set version, u64 cents, u64 time, big-endian. */
export function priceDigest(p: PriceFields): Uint8Array {
  const bytes = new Uint8Array(22);
  const view = new DataView(bytes.buffer);
  view.setUint16(0, p.guardian);
  view.setUint32(2, p.setVersion);
  view.setBigUint64(6, BigInt(p.priceCents));
  view.setBigUint64(14, BigInt(p.time));
  return taggedDigest(PRICE_TAG, bytes);
}

export function signPrice(secretKey: Uint8Array, fields: PriceFields): SignedPrice {
  const { guardian, setVersion, priceCents, time } = fields;
  const sig = bytesToHex(schnorr.sign(priceDigest(fields), secretKey));
  return { guardian, setVersion, priceCents, time, sig };
}

/** A signed price from an untrusted party, or an Error saying why it is not one. */
export function parseSignedPrice(raw: unknown): SignedPrice {
  const parsed = signedPriceShape.safeParse(raw);
  if (!parsed.success) throw new Error('not a signed price');
  return parsed.data;
}

/** Why `p` is not the price of guardian `p.guardian` of this set, or null. */
export function signedPriceProblem(set: GuardianSetBody, p: SignedPrice): string | null {
  const member = set.members.find((m) => m.id === p.guardian);
  if (!member) return `guardian ${p.guardian} is not in the set`;
  if (p.setVersion !== set.version) return `signed for set version ${p.setVersion}`;
  let ok = false;
  try {
    ok = schnorr.verify(parseHex(p.sig, 64), priceDigest(p), parseHex(member.identityKey, 32));
  } catch {
    ok = false;
  }
  return ok ? null : 'price signature does not verify';
}

/**
 * The hash a quote commits to, hex: the signed prices it is the median of, in guardian order, with
 * their signatures. The state record ends with these 32 bytes in network mode; the one
 * implementation is @unit/bitcoin's (the web and the app's guardian write and check it too).
 */
export function priceQuorumCommitment(used: readonly SignedPrice[]): string {
  return bytesToHex(recordCommitment(used));
}

// A DKG round-2 share on the wire, and the evidence that names the sender of a bad one. Each share
// is encrypted to its receiver (AES-256-GCM under a key derived from the ECDH of the two identity
// keys and the DKG session, so each session's key opens one share only) inside a message the
// sender signs. A receiver whose share fails the sender's round-1 commitment hands the coordinator
// that signed message and the session key of that one pair: anyone holding the sender's signed
// round-1 package can then open the share and see that it fails, so the sender is named, not the
// receiver's word.
import { secp256k1 } from '@noble/curves/secp256k1.js';
import type { DKG_Round1 } from '@noble/curves/abstract/frost.js';
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, parseHex, utf8ToBytes, type Json } from './canonical';
import { ProtocolError, type Wire } from './envelope';
import type { Identity } from './identity';
import { checkReply } from './transport';

/** A DKG session: 16 random bytes, hex, chosen by the coordinator for one attempt. */
export const SESSION_RE = /^[0-9a-f]{32}$/;

/** The key of one pair's share in one session (SHA-256 of a tag, the ECDH x and the session). */
export function shareKey(identity: Identity, peer: string, session: string): Uint8Array {
  const shared = secp256k1.getSharedSecret(identity.secretKey, parseHex('02' + peer, 33));
  return sha256(
    new Uint8Array([
      ...utf8ToBytes('unit/dkg-share/v2'),
      ...shared.subarray(1),
      ...utf8ToBytes(session),
    ]),
  );
}

export function seal(key: Uint8Array, from: string, to: string, plain: Uint8Array): Json {
  const iv = randomBytes(12);
  const c = createCipheriv('aes-256-gcm', key, iv);
  c.setAAD(Buffer.from(from + to));
  const ct = Buffer.concat([c.update(plain), c.final()]);
  return { iv: iv.toString('hex'), ct: ct.toString('hex'), tag: c.getAuthTag().toString('hex') };
}

/** The plaintext share, or null when the box does not open under `key` (bad key or bad box). */
export function open(key: Uint8Array, from: string, to: string, box: unknown): Uint8Array | null {
  try {
    const b = (box ?? {}) as Record<string, unknown>;
    const d = createDecipheriv('aes-256-gcm', key, parseHex(b.iv, 12, 'iv'));
    d.setAAD(Buffer.from(from + to));
    d.setAuthTag(parseHex(b.tag, 16, 'tag'));
    return new Uint8Array(Buffer.concat([d.update(parseHex(b.ct, 32, 'ct')), d.final()]));
  } catch {
    return null;
  }
}

/** RFC 9591's vss_verify: share·G is the sender's commitment polynomial at the receiver's id. */
export function shareHolds(
  receiverId: number,
  commitment: Uint8Array[],
  share: Uint8Array,
): boolean {
  try {
    const { Point } = secp256k1;
    const Fn = Point.Fn;
    const s = Fn.fromBytes(share);
    if (s === 0n) return false;
    let acc = Point.ZERO;
    let power = 1n;
    for (const c of commitment) {
      acc = acc.add(Point.fromBytes(c).multiplyUnsafe(power)); // public: commitment, id
      power = Fn.mul(power, BigInt(receiverId));
    }
    return Point.BASE.multiply(s).equals(acc);
  } catch {
    return false;
  }
}

/** What a receiver hands the coordinator against the sender of a bad share. */
export interface BlameEvidence {
  /** the accused sender's id */
  guardian: number;
  /** the sender's signed `dkg/share` message, as received */
  share: Wire;
  /** this pair's key for this session, hex */
  key: string;
}

export interface BlameParties {
  session: string;
  accuser: { id: number; identityKey: string };
  accused: { id: number; identityKey: string };
  /** the accused's round-1 package, from its own signed answer */
  round1: DKG_Round1;
}

/**
 * Judges a receiver's accusation: `accused` when its own signed message holds a share that opens
 * under the revealed key and fails its own commitment; `unproven` when the evidence does not show
 * that (a forged or foreign message, another session, or a box that does not open under the key:
 * a wrong key and a broken box cannot be told apart without a proof of the key).
 */
export function judgeBlame(
  raw: unknown,
  p: BlameParties,
): { verdict: 'accused' | 'unproven'; why: string } {
  const e = (raw ?? {}) as Partial<BlameEvidence>;
  const unproven = (why: string) => ({ verdict: 'unproven' as const, why });
  let body: { session?: unknown; box?: unknown };
  try {
    const payload = checkReply(e.share as Wire, p.accused.identityKey);
    if (payload.type !== 'dkg/share' || payload.to !== p.accuser.identityKey)
      return unproven('the message is not its share to the accuser');
    body = (payload.body ?? {}) as typeof body;
  } catch {
    return unproven('the share message is not signed by the accused');
  }
  if (body.session !== p.session) return unproven('the share is from another DKG session');
  let key: Uint8Array;
  try {
    key = parseHex(e.key, 32, 'key');
  } catch {
    return unproven('the revealed key is malformed');
  }
  const plain = open(key, p.accused.identityKey, p.accuser.identityKey, body.box);
  if (!plain) return unproven('the share does not open under the revealed key');
  if (shareHolds(p.accuser.id, p.round1.commitment, plain))
    return unproven('the share holds against the sender’s commitment');
  return { verdict: 'accused', why: 'its share fails its own round-1 commitment' };
}

export function evidence(guardian: number, share: Wire, key: Uint8Array): BlameEvidence {
  return { guardian, share, key: bytesToHex(key) };
}

export function checkSession(raw: unknown): string {
  if (typeof raw !== 'string' || !SESSION_RE.test(raw))
    throw new ProtocolError('malformed', 'a DKG session is 16 bytes of hex');
  return raw;
}

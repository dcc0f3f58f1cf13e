// A message's authentication by a MAC instead of a BIP-340 signature, for the co-signing rounds
// between the coordinator and a guardian (docs/guardian-protocol.md, "Messages authenticated by a
// MAC"). Each ordered pair of parties of the published set shares a key: the x coordinate of the
// ECDH of their identity keys, through HKDF-SHA256 with a domain tag and the pair's direction, so
// a key from A to B never authenticates B to A. Only the two parties can compute it; unlike a
// signature it proves nothing to a third party, so anything a third party must check (the set, a
// handover, a signed price, a DKG round-1 package relayed to the other guardians) stays BIP-340.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { hkdf } from '@noble/hashes/hkdf.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { parseHex, utf8ToBytes } from './canonical';

export const MAC_TAG = 'unit/guardian-message-mac/v1';
const MAC_BYTES = 32;

/**
 * Keys derived by one secret key, by direction (`from>to`): an ECDH costs ~2 ms, so each pair's is
 * done once per process. Keyed by the secret key object itself, so a message sealed with another
 * key under the same `from` never finds this one's keys.
 */
const derived = new WeakMap<Uint8Array, Map<string, Buffer>>();

/**
 * The key authenticating messages from `from` to `to`, derived with `secretKey`, which is either
 * party's (the sender seals with it, the receiver checks with it). `from` and `to` are x-only hex.
 */
export function pairwiseKey(secretKey: Uint8Array, from: string, to: string): Buffer {
  let keys = derived.get(secretKey);
  if (!keys) derived.set(secretKey, (keys = new Map()));
  const direction = `${from}>${to}`;
  const known = keys.get(direction);
  if (known) return known;
  const own = secp256k1.getPublicKey(secretKey, true).subarray(1);
  const ownHex = Buffer.from(own).toString('hex');
  const peer = ownHex === from ? to : ownHex === to ? from : null;
  if (peer === null) throw new Error('this key is neither party of the pair');
  // x-only keys: the peer's point is taken with even y. ±(a·b·G) share their x coordinate, so both
  // parties reach the same secret whatever the parity of their own points.
  const shared = secp256k1
    .getSharedSecret(secretKey, parseHex(`02${peer}`, 33, 'identity key'), true)
    .subarray(1);
  const key = Buffer.from(hkdf(sha256, shared, utf8ToBytes(MAC_TAG), utf8ToBytes(direction), 32));
  keys.set(direction, key);
  return key;
}

/** HMAC-SHA256 of the payload text under the pair's key, hex. */
export function macOf(key: Buffer, payload: string): string {
  return createHmac('sha256', key).update(payload, 'utf8').digest('hex');
}

/** Whether `mac` (hex from the wire) is the payload's, compared in constant time. */
export function macHolds(key: Buffer, payload: string, mac: string): boolean {
  if (!/^[0-9a-f]+$/.test(mac) || mac.length !== MAC_BYTES * 2) return false;
  return timingSafeEqual(Buffer.from(macOf(key, payload), 'hex'), Buffer.from(mac, 'hex'));
}

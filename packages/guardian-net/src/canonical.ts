// The bytes a party signs: one JSON form per value, keys sorted, so that every guardian, the
// coordinator and a reader of the published set compute the same digest from the same data.
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, hexToBytes, utf8ToBytes } from '@noble/hashes/utils.js';

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

export function canonicalJson(value: Json): string {
  if (value === null || typeof value !== 'object') {
    if (typeof value === 'number' && !Number.isSafeInteger(value))
      throw new Error('canonical JSON carries integers only');
    return JSON.stringify(value);
  }
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const keys = Object.keys(value).sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(value[k] as Json)}`).join(',')}}`;
}

/** BIP-340 style tagged hash, so a signature made for one purpose cannot be replayed as another. */
export function taggedDigest(tag: string, body: Uint8Array): Uint8Array {
  const t = sha256(utf8ToBytes(tag));
  const out = new Uint8Array(64 + body.length);
  out.set(t, 0);
  out.set(t, 32);
  out.set(body, 64);
  return sha256(out);
}

const HEX = /^(?:[0-9a-f]{2})*$/;

/** Hex from an untrusted peer: lower case, even length and, when given, an exact byte length. */
export function parseHex(value: unknown, bytes?: number, what = 'hex'): Uint8Array<ArrayBuffer> {
  if (typeof value !== 'string' || !HEX.test(value)) throw new Error(`${what} is not hex`);
  if (bytes !== undefined && value.length !== bytes * 2)
    throw new Error(`${what} must be ${bytes} bytes`);
  return new Uint8Array(hexToBytes(value));
}

export { bytesToHex, hexToBytes, utf8ToBytes };

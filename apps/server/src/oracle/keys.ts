// The oracle's identity: a Schnorr key pair that signs quotes, and a secret from which it derives
// one threshold secret per (threshold price, stamp) with @unit/bitcoin's `thresholdSecret`.
import { randomBytes } from 'node:crypto';
import { schnorr } from '@noble/curves/secp256k1.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, concatBytes, hexToBytes } from '@noble/hashes/utils.js';
import type { Kysely } from 'kysely';
import type { SignedQuote } from '@unit/protocol';
import type { Database } from '../store/schema';
import { getOrCreateSetting } from '../store/settings';

export interface OracleKeys {
  secretKey: Uint8Array;
  /** x-only, hex */
  pubkey: string;
  oracleSecret: Uint8Array;
}

const textBytes = (text: string) => new TextEncoder().encode(text);
const QUOTE_TAG = textBytes('unit/quote');

function u64be(value: number | bigint): Uint8Array {
  const big = BigInt(value);
  if (big < 0n || big >= 1n << 64n) throw new RangeError(`${value} is not a u64`);
  const out = new Uint8Array(8);
  new DataView(out.buffer).setBigUint64(0, big);
  return out;
}

function u32be(value: number): Uint8Array {
  if (!Number.isInteger(value) || value < 0 || value > 0xffff_ffff) {
    throw new RangeError(`${value} is not a u32`);
  }
  const out = new Uint8Array(4);
  new DataView(out.buffer).setUint32(0, value);
  return out;
}

/** sha256("unit/quote" || u64be(price_cents) || u32be(time) || u64be(th) || u32be(ts)) (api.ts). */
export function quoteDigest(q: Omit<SignedQuote, 'signature'>): Uint8Array {
  return sha256(
    concatBytes(QUOTE_TAG, u64be(q.price_cents), u32be(q.time), u64be(q.th), u32be(q.ts)),
  );
}

export function signQuote(keys: OracleKeys, q: Omit<SignedQuote, 'signature'>): SignedQuote {
  return { ...q, signature: bytesToHex(schnorr.sign(quoteDigest(q), keys.secretKey)) };
}

/** What the guardian runs before trusting a quote's price. */
export function verifyQuote(oraclePubkey: string, quote: SignedQuote): boolean {
  try {
    return schnorr.verify(
      hexToBytes(quote.signature),
      quoteDigest(quote),
      hexToBytes(oraclePubkey),
    );
  } catch {
    return false;
  }
}

/** Loads the oracle keys, generating and storing them on first start. */
export async function loadOracleKeys(db: Kysely<Database>): Promise<OracleKeys> {
  const secretKey = hexToBytes(
    await getOrCreateSetting(db, 'oracle_key', () => bytesToHex(schnorr.utils.randomSecretKey())),
  );
  const oracleSecret = hexToBytes(
    await getOrCreateSetting(db, 'oracle_secret', () => randomBytes(32).toString('hex')),
  );
  return { secretKey, pubkey: bytesToHex(schnorr.getPublicKey(secretKey)), oracleSecret };
}

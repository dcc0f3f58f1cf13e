// The oracle's identity: a Schnorr key pair that signs quotes, and a secret from which it derives
// one threshold secret per (threshold price, stamp) with @unit/bitcoin's `thresholdSecret`. Both
// live in a file (ORACLE_KEY_FILE), never only in the database.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import { schnorr } from '@noble/curves/secp256k1.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, concatBytes, hexToBytes } from '@noble/hashes/utils.js';
import type { Kysely } from 'kysely';
import type { Network, SignedQuote } from '@unit/protocol';
import { ConfigError, oracleKeyFileProblems, parseOracleKeyFile } from '../config';
import type { Database } from '../store/schema';
import { getOrCreateSetting, getSetting } from '../store/settings';
import { moveSecretOut, writeNewSecretFile } from '../store/secret-files';

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

function keysOf(keyHex: string, secretHex: string): OracleKeys {
  const secretKey = hexToBytes(keyHex);
  return {
    secretKey,
    pubkey: bytesToHex(schnorr.getPublicKey(secretKey)),
    oracleSecret: hexToBytes(secretHex),
  };
}

/** The key file's text: what `oracle-key` writes and the start reads back. */
export function oracleKeyFileText(keyHex: string, secretHex: string): string {
  return `${JSON.stringify({ oracle_key: keyHex, oracle_secret: secretHex })}\n`;
}

/** Writes a new key file, mode 0600, refusing to replace one (a lost key strands vaults). */
export function createOracleKeyFile(
  file: string,
  keyHex = bytesToHex(schnorr.utils.randomSecretKey()),
  secretHex = randomBytes(32).toString('hex'),
): void {
  writeNewSecretFile(file, oracleKeyFileText(keyHex, secretHex));
}

/**
 * An older devnet kept the oracle's keys in the settings table: moved into ORACLE_KEY_FILE (written
 * when there is none, compared when there is one), then the rows go (store/secret-files.ts).
 */
async function moveOracleRowsOut(db: Kysely<Database>, file: string): Promise<void> {
  const key = await getSetting(db, 'oracle_key');
  const secret = await getSetting(db, 'oracle_secret');
  if (key === null && secret === null) return;
  const remove = async () => {
    await db.deleteFrom('settings').where('key', 'in', ['oracle_key', 'oracle_secret']).execute();
  };
  if (key === null || secret === null) {
    // Half a key pair cannot make a file; one that holds the same half keeps it.
    if (!fs.existsSync(file))
      throw new ConfigError([
        `the database holds only ${key === null ? 'oracle_secret' : 'oracle_key'} of the oracle's keys and ORACLE_KEY_FILE ${file} does not exist; restore the key file from a backup and start again`,
      ]);
  }
  await moveSecretOut({
    row: 'settings oracle_key and oracle_secret',
    what: 'ORACLE_KEY_FILE',
    file,
    text: oracleKeyFileText(key ?? '', secret ?? ''),
    matches: (text) => {
      const parsed = parseOracleKeyFile(text);
      return (
        parsed.problem === null &&
        (key === null || parsed.key === key.toLowerCase()) &&
        (secret === null || parsed.secret === secret.toLowerCase())
      );
    },
    remove,
  });
}

/**
 * The oracle keys from ORACLE_KEY_FILE, so losing the database loses no secret: every threshold
 * secret derives from the file's seed and a vault's own threshold and stamp. On the devnet a
 * missing file is made at first start (instances of one devnet cluster share it by configuration,
 * as they share GUARDIAN_KEY). The database remembers only the oracle's public key, and refuses a
 * file that is not the one its vaults were opened with.
 */
export async function loadOracleKeys(
  db: Kysely<Database>,
  options: { file: string; network: Network },
): Promise<OracleKeys> {
  await moveOracleRowsOut(db, options.file);
  if (options.network === 'devnet' && !fs.existsSync(options.file))
    createOracleKeyFile(options.file);
  const problems = oracleKeyFileProblems(options.file);
  if (problems.length > 0) throw new ConfigError(problems);
  const parsed = parseOracleKeyFile(fs.readFileSync(options.file, 'utf8'));
  if (parsed.problem !== null) throw new ConfigError([parsed.problem]);
  const keys = keysOf(parsed.key, parsed.secret);
  const known = await getOrCreateSetting(db, 'oracle_pubkey', () => keys.pubkey);
  if (known !== keys.pubkey)
    throw new ConfigError([
      `ORACLE_KEY_FILE ${options.file} holds oracle key ${keys.pubkey}, but this database's vaults were opened with ${known}`,
    ]);
  return keys;
}

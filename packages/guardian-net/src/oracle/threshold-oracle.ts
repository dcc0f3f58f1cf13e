// Each guardian is an oracle: from a secret in its own 0600 file (`oracle.json`
// in its directory, made at first start like identity.json, never logged or served) it derives one
// threshold secret per (threshold, stamp), exactly as the app's single oracle does
// (`thresholdSecret` of @unit/bitcoin: HMAC-SHA256(secret, "unit/threshold" || u64 th || u32 stamp)).
// A vault's liquidation leaf i commits to hash160 of oracle i's secret. The hash is public and
// signed by the guardian's identity key (a statement); the secret is revealed only on the
// guardian's own fresh price at or under the threshold (routes.ts).
import { schnorr } from '@noble/curves/secp256k1.js';
import { hmac } from '@noble/hashes/hmac.js';
import { ripemd160 } from '@noble/hashes/legacy.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import * as z from 'zod';
import { VAULT_MAX_ORACLE_COUNT } from '@unit/protocol';
import { bytesToHex, parseHex, taggedDigest, utf8ToBytes } from '../canonical';
import { LruMap } from '../bounded';
import type { GuardianSetBody } from '../guardian-set';
import { readSecretFile, writeSecretFile } from '../secret-file';

export const ORACLE_HASH_TAG = 'unit/oracle-hash';
const THRESHOLD_TAG = utf8ToBytes('unit/threshold');

/** A guardian's hash160 of its threshold secret for (th, ts), signed by its identity key. */
export interface OracleHashStatement {
  guardian: number;
  setVersion: number;
  /** USD cents per BTC */
  th: number;
  /** the quote's stamp, unix seconds */
  ts: number;
  /** hash160 of the threshold secret, hex */
  hash: string;
  /** BIP-340 by the guardian's identity key over oracleHashDigest, hex */
  sig: string;
}

const u = (max: number) => z.number().int().min(0).max(max);
const statementShape = z.strictObject({
  guardian: u(0xffff).min(1),
  setVersion: u(0xffff_ffff),
  th: u(Number.MAX_SAFE_INTEGER),
  ts: u(0xffff_ffff),
  hash: z.string().regex(/^[0-9a-f]{40}$/),
  sig: z.string().regex(/^[0-9a-f]{128}$/),
});

function u64(value: number): Uint8Array {
  const out = new Uint8Array(8);
  new DataView(out.buffer).setBigUint64(0, BigInt(value));
  return out;
}

function u32(value: number): Uint8Array {
  const out = new Uint8Array(4);
  new DataView(out.buffer).setUint32(0, value);
  return out;
}

/** `HMAC-SHA256(oracle_secret, "unit/threshold" || u64be(th) || u32be(stamp))` (docs/protocol.md). */
export function deriveThresholdSecret(secret: Uint8Array, th: number, ts: number): Uint8Array {
  return hmac(sha256, secret, new Uint8Array([...THRESHOLD_TAG, ...u64(th), ...u32(ts)]));
}

export const hash160 = (bytes: Uint8Array): Uint8Array => ripemd160(sha256(bytes));

/** taggedHash("unit/oracle-hash", u16 id || u32 set version || u64 th || u32 stamp || hash160). */
export function oracleHashDigest(s: Omit<OracleHashStatement, 'sig'>): Uint8Array {
  const body = new Uint8Array(2 + 4 + 8 + 4 + 20);
  const view = new DataView(body.buffer);
  view.setUint16(0, s.guardian);
  view.setUint32(2, s.setVersion);
  view.setBigUint64(6, BigInt(s.th));
  view.setUint32(14, s.ts);
  body.set(parseHex(s.hash, 20, 'hash'), 18);
  return taggedDigest(ORACLE_HASH_TAG, body);
}

/** A statement from an untrusted party, or an Error. */
export function parseOracleHashStatement(raw: unknown): OracleHashStatement {
  const parsed = statementShape.safeParse(raw);
  if (!parsed.success) throw new Error('not an oracle hash statement');
  return parsed.data;
}

/**
 * How many oracles a vault of this set commits to: at most VAULT_MAX_ORACLE_COUNT (3), at least
 * min(t, 3). The coordinator asks every guardian and takes the first three that answer, by id, so
 * one guardian down (of a 2-of-3) does not stop new vaults; every guardian checks the list
 * (oracle-hashes.ts): that many statements, ids ascending, each signed by that member.
 */
export function oracleCount(set: Pick<GuardianSetBody, 't'>): { min: number; max: number } {
  return { min: Math.min(set.t, VAULT_MAX_ORACLE_COUNT), max: VAULT_MAX_ORACLE_COUNT };
}

/** Why `s` is not guardian `s.guardian`'s statement for (th, ts) under this set, or null. */
export function oracleHashProblem(
  set: Pick<GuardianSetBody, 'members' | 'version'>,
  s: OracleHashStatement,
  th: number,
  ts: number,
): string | null {
  const member = set.members.find((m) => m.id === s.guardian);
  if (!member) return `guardian ${s.guardian} is not in the set`;
  if (s.setVersion !== set.version) return `signed for set version ${s.setVersion}`;
  if (s.th !== th || s.ts !== ts) return `a statement for another threshold or stamp`;
  try {
    const ok = schnorr.verify(
      parseHex(s.sig, 64),
      oracleHashDigest(s),
      parseHex(member.identityKey, 32),
    );
    return ok ? null : 'oracle hash signature does not verify';
  } catch {
    return 'oracle hash signature does not verify';
  }
}

/** What a guardian's vault policy gets of its oracle (ValidatorEnv.oracle). */
export interface OracleEnv {
  /** the set the session signs for: its members' identity keys check the other statements */
  set: Pick<GuardianSetBody, 'members' | 'version' | 't'>;
  oracle: ThresholdOracle;
}

/** Signed statements kept: a quote's (th, ts) is asked once per guardian per vault open. */
export const STATEMENT_CACHE_SIZE = 1_024;

/**
 * One guardian's oracle: its secret file, its hashes and statements. A statement is signed once
 * per (set version, th, ts) while it stays among the last STATEMENT_CACHE_SIZE asked: the public
 * route answers a repeated question without a new signature.
 */
export class ThresholdOracle {
  private readonly secret: Uint8Array;
  private readonly statements: LruMap<string, OracleHashStatement>;
  /** statements signed since start (a cached answer signs none) */
  signed = 0;

  constructor(
    private readonly o: {
      /** the guardian's directory: `oracle.json` (0600) lives there */
      dir: string;
      guardian: number;
      /** the identity key's secret, read when a statement is signed */
      identitySecret: () => Uint8Array;
      /** statements kept (default STATEMENT_CACHE_SIZE) */
      cacheSize?: number;
    },
  ) {
    this.secret = ensureOracleSecret(join(o.dir, 'oracle.json'));
    this.statements = new LruMap(o.cacheSize ?? STATEMENT_CACHE_SIZE);
  }

  /** The threshold secret of (th, ts); the caller decides whether it may leave the process. */
  thresholdSecret(th: number, ts: number): Uint8Array {
    return deriveThresholdSecret(this.secret, th, ts);
  }

  hash(th: number, ts: number): Uint8Array {
    return hash160(this.thresholdSecret(th, ts));
  }

  get guardian(): number {
    return this.o.guardian;
  }

  statement(setVersion: number, th: number, ts: number): OracleHashStatement {
    const key = `${setVersion}:${th}:${ts}`;
    const kept = this.statements.get(key);
    if (kept) return kept;
    const hash = bytesToHex(this.hash(th, ts));
    const fields = { guardian: this.o.guardian, setVersion, th, ts, hash };
    const sig = schnorr.sign(oracleHashDigest(fields), this.o.identitySecret());
    const statement = { ...fields, sig: bytesToHex(sig) };
    this.signed++;
    this.statements.set(key, statement);
    return statement;
  }
}

/** Loads the oracle secret at `path`, creating a new one (0600) when there is none. */
export function ensureOracleSecret(path: string): Uint8Array {
  if (!existsSync(path)) {
    const secret = new Uint8Array(32);
    crypto.getRandomValues(secret);
    writeSecretFile(path, JSON.stringify({ oracleSecret: bytesToHex(secret) }) + '\n');
    return secret;
  }
  const raw = JSON.parse(readSecretFile(path)) as { oracleSecret?: unknown };
  return parseHex(raw.oracleSecret, 32, 'oracle secret');
}

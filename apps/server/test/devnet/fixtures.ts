// Shared set-up of the devnet tests: a migrated SQLite file per test, keys from fixed secrets, and
// real signed spends built with @scure/btc-signer.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import {
  Kysely,
  Migrator,
  PostgresDialect,
  SqliteDialect,
  sql,
  type Migration,
  type MigrationProvider,
} from 'kysely';
import pg from 'pg';
import { secp256k1, schnorr } from '@noble/curves/secp256k1.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { p2tr, p2wpkh, TEST_NETWORK, Transaction } from '@scure/btc-signer';
import { afterEach, expect } from 'vitest';
import { BroadcastError } from '../../src/chain/port';
import { devnetMigrations } from '../../src/devnet/migrations';
import { createDevnet, type Devnet } from '../../src/devnet/devnet';

export interface TestDb {
  db: Kysely<unknown>;
  file: string;
  close(): Promise<void>;
  cleanup(): void;
}

async function migrate(db: Kysely<unknown>, schema?: string): Promise<void> {
  const provider: MigrationProvider = {
    getMigrations: async (): Promise<Record<string, Migration>> => devnetMigrations,
  };
  // On PostgreSQL Kysely looks its bookkeeping tables up in every schema unless told which: other
  // suites' schemas in the same database would hand it a lock table that is not this one's.
  const { error } = await new Migrator({
    db,
    provider,
    ...(schema ? { migrationTableSchema: schema } : {}),
  }).migrateToLatest();
  if (error) throw error;
}

export async function openTestDb(dir?: string): Promise<TestDb> {
  const folder = dir ?? mkdtempSync(join(tmpdir(), 'devnet-test-'));
  const file = join(folder, 'unit.db');
  const db = new Kysely<unknown>({ dialect: new SqliteDialect({ database: new Database(file) }) });
  await migrate(db);
  return {
    db,
    file,
    close: () => db.destroy(),
    cleanup: () => rmSync(folder, { recursive: true, force: true }),
  };
}

/** PostgreSQL (TEST_DATABASE_URL, see scripts/ensure-postgres.sh): one schema per call. */
export async function openPostgresTestDb(
  url: string,
  schema?: string,
): Promise<TestDb & { schema: string }> {
  const name = schema ?? `devnet_${Date.now()}_${Math.floor(Math.random() * 1e6)}`;
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  await admin.query(`CREATE SCHEMA IF NOT EXISTS ${name}`);
  await admin.end();
  const pool = new pg.Pool({ connectionString: url, options: `-c search_path=${name}` });
  const db = new Kysely<unknown>({ dialect: new PostgresDialect({ pool }) });
  await migrate(db, name);
  return {
    db,
    file: url,
    schema: name,
    close: () => db.destroy(),
    cleanup: () => undefined,
  };
}

/** Drops a schema made by openPostgresTestDb. */
export async function dropPostgresSchema(url: string, schema: string): Promise<void> {
  const db = new Kysely<unknown>({
    dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: url }) }),
  });
  await sql`DROP SCHEMA IF EXISTS ${sql.id(schema)} CASCADE`.execute(db);
  await db.destroy();
}

/** A test key derived from a fixed label, so every run uses the same addresses. */
export function testKey(label: string) {
  const secret = sha256(new TextEncoder().encode(`unit devnet test ${label}`));
  const pubkey = secp256k1.getPublicKey(secret, true);
  const wpkh = p2wpkh(pubkey, TEST_NETWORK);
  const xonly = schnorr.getPublicKey(secret);
  const tr = p2tr(xonly, undefined, TEST_NETWORK);
  return {
    secret,
    pubkey,
    xonly,
    address: wpkh.address!,
    script: wpkh.script,
    trAddress: tr.address!,
    trScript: tr.script,
  };
}

export const TREASURY = testKey('treasury');
export const ALICE = testKey('alice');
export const BOB = testKey('bob');
export const GUARDIAN = testKey('guardian');

/** The test devnet's faucet key: a devnet keeps its faucet key apart from its database. */
export const TEST_FAUCET_SECRET = sha256(new TextEncoder().encode('unit devnet test faucet'));

export async function openTestDevnet(opts: { dir?: string; now?: () => number } = {}) {
  const store = await openTestDb(opts.dir);
  const devnet = await createDevnet({
    db: store.db,
    treasuryScript: TREASURY.trScript,
    guardianScript: GUARDIAN.script,
    blockIntervalMs: 0,
    faucetSecret: TEST_FAUCET_SECRET,
    ...(opts.now ? { now: opts.now } : {}),
  });
  return { devnet, store };
}

/**
 * Opens a devnet of its own for each test that asks (`const fresh = devnetPerTest()` at the top of a
 * file): stopped, its database closed and removed after that test.
 */
export function devnetPerTest(): (opts?: {
  now?: () => number;
}) => ReturnType<typeof openTestDevnet> {
  let cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups) await cleanup();
    cleanups = [];
  });
  return async (opts = {}) => {
    const opened = await openTestDevnet(opts);
    cleanups.push(async () => {
      opened.devnet.stop();
      await opened.store.close();
      opened.store.cleanup();
    });
    return opened;
  };
}

/** Why the devnet refused a transaction: the reason its BroadcastError gives. */
export async function refusal(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(BroadcastError);
    return (error as Error).message;
  }
  throw new Error('the transaction was accepted');
}

export interface SpendInput {
  txid: string;
  vout: number;
  value: bigint;
  /** the owner: P2WPKH key path unless `taproot` */
  key: ReturnType<typeof testKey>;
  taproot?: boolean;
  /** nSequence; below 0xfffffffe signals BIP-125 replaceability. Default final (0xffffffff). */
  sequence?: number;
}

/** A real signed transaction spending the inputs to the outputs (any script allowed). */
export function signedSpend(
  inputs: SpendInput[],
  outputs: { script: Uint8Array; amount: bigint }[],
): Transaction {
  const tx = new Transaction({ allowUnknownOutputs: true });
  for (const input of inputs) {
    tx.addInput({
      txid: input.txid,
      index: input.vout,
      witnessUtxo: {
        script: input.taproot ? input.key.trScript : input.key.script,
        amount: input.value,
      },
      ...(input.taproot ? { tapInternalKey: input.key.xonly } : {}),
      ...(input.sequence !== undefined ? { sequence: input.sequence } : {}),
    });
  }
  for (const output of outputs) tx.addOutput(output);
  inputs.forEach((input, i) => tx.signIdx(input.key.secret, i));
  tx.finalize();
  return tx;
}

export type { Devnet };

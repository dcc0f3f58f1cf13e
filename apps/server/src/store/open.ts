// Opens the database: SQLite (better-sqlite3, WAL) by default, PostgreSQL when a postgres:// URL is
// given. Both dialects read 64-bit integers back as JS numbers so repositories see one shape.
import { createRequire } from 'node:module';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import SQLite from 'better-sqlite3';
import pg from 'pg';
import { Kysely, SqliteDialect } from 'kysely';
import { OwnSchemaPostgresDialect } from './pg-introspector';
import type { Database } from './schema';
import { createPrivateFile, tightenDatabaseFiles } from './secret-files';

export interface Store {
  db: Kysely<Database>;
  dialect: 'sqlite' | 'postgres';
  close(): Promise<void>;
}

export interface OpenStoreOptions {
  /** postgres://… URL; wins over `file`. */
  databaseUrl?: string | null;
  /** SQLite file path (its folder is created); ':memory:' for a throwaway database. */
  file?: string;
  /** PostgreSQL schema to create and use (tests isolate themselves with one per file). */
  schema?: string;
}

const PG_INT8_OID = 20;

/** int8 as a number, refusing values that a double would round (never a real amount). */
function parseInt8(text: string): number {
  const value = Number(text);
  if (!Number.isSafeInteger(value)) throw new RangeError(`int8 ${text} exceeds 2^53`);
  return value;
}

const pgTypes = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === PG_INT8_OID
      ? parseInt8
      : pg.types.getTypeParser(oid, format as 'text')) as typeof pg.types.getTypeParser,
};

export async function openStore(options: OpenStoreOptions = {}): Promise<Store> {
  if (options.databaseUrl) return openPostgres(options.databaseUrl, options.schema);
  const file = options.file ?? ':memory:';
  // Owner-only from the first byte: the file is made 0600 before SQLite opens it (its -wal and -shm
  // take the main file's mode), and an older start's files are tightened.
  if (file !== ':memory:') createPrivateFile(path.resolve(file));
  const database = new SQLite(file);
  database.pragma('journal_mode = WAL');
  if (file !== ':memory:') tightenDatabaseFiles(path.resolve(file));
  database.pragma('foreign_keys = ON');
  // Several async writers share one connection; wait on a lock rather than fail.
  database.pragma('busy_timeout = 5000');
  const checkpointer = file === ':memory:' ? null : startCheckpointer(database, file);
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database }) });
  return {
    db,
    dialect: 'sqlite',
    close: async () => {
      await checkpointer?.stop();
      await db.destroy();
    },
  };
}

/** How often the checkpointer moves the WAL's pages into the database file. */
const CHECKPOINT_EVERY_MS = 1000;

// The checkpointer's own connection, in a worker thread (CommonJS: eval'd workers are scripts).
const CHECKPOINTER_SOURCE = `
const { workerData, parentPort } = require('node:worker_threads');
const SQLite = require(workerData.driver);
const db = new SQLite(workerData.file);
db.pragma('busy_timeout = 5000');
const checkpoint = () => { try { db.pragma('wal_checkpoint(PASSIVE)'); } catch {} };
const timer = setInterval(checkpoint, workerData.everyMs);
parentPort.on('message', () => {
  clearInterval(timer);
  checkpoint();
  db.close();
  parentPort.close();
});
`;

/**
 * SQLite checkpoints the WAL on the connection that commits once it passes 1,000 pages: copying
 * and syncing megabytes on the event loop (600 ms seen under the bench's load). The app's
 * connection does none; a worker thread's connection checkpoints every second instead (PASSIVE:
 * it never waits for, nor blocks, the app's readers and writer).
 */
function startCheckpointer(database: SQLite.Database, file: string): { stop(): Promise<void> } {
  database.pragma('wal_autocheckpoint = 0');
  const worker = new Worker(CHECKPOINTER_SOURCE, {
    eval: true,
    workerData: {
      file: path.resolve(file),
      driver: createRequire(import.meta.url).resolve('better-sqlite3'),
      everyMs: CHECKPOINT_EVERY_MS,
    },
  });
  worker.unref();
  // Without the worker, SQLite checkpoints on the app's connection again rather than let the WAL grow.
  worker.once('error', () => database.pragma('wal_autocheckpoint = 1000'));
  const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
  return {
    stop: async () => {
      // Held open until it has finished its last checkpoint.
      worker.ref();
      worker.postMessage('stop');
      await exited;
    },
  };
}

async function openPostgres(connectionString: string, schema?: string): Promise<Store> {
  if (schema !== undefined) {
    if (!/^[a-z_][a-z0-9_]{0,62}$/.test(schema)) throw new Error(`Bad schema name ${schema}`);
    const client = new pg.Client({ connectionString });
    await client.connect();
    try {
      await client.query(`create schema if not exists ${schema}`);
    } catch (error) {
      // Two instances starting at once both find the schema missing; the slower one's create then
      // fails on PostgreSQL's catalog (23505) though the schema now exists, which is all it wanted.
      if ((error as { code?: string }).code !== '23505') throw error;
    } finally {
      await client.end();
    }
  }
  const pool = new pg.Pool({
    connectionString,
    max: 10,
    types: pgTypes,
    ...(schema !== undefined ? { options: `-c search_path=${schema}` } : {}),
  });
  // Introspection (the migrator's) reads this schema alone, so other schemas' DDL cannot fail it.
  const db = new Kysely<Database>({ dialect: new OwnSchemaPostgresDialect({ pool }) });
  return { db, dialect: 'postgres', close: () => db.destroy() };
}

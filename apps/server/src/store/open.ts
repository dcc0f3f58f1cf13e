// Opens the database: SQLite (better-sqlite3, WAL) by default, PostgreSQL when a postgres:// URL is
// given. Both dialects read 64-bit integers back as JS numbers so repositories see one shape.
import fs from 'node:fs';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import pg from 'pg';
import { Kysely, PostgresDialect, SqliteDialect } from 'kysely';
import type { Database } from './schema';

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
  if (file !== ':memory:') fs.mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
  const database = new SQLite(file);
  database.pragma('journal_mode = WAL');
  database.pragma('foreign_keys = ON');
  // Several async writers share one connection; wait on a lock rather than fail.
  database.pragma('busy_timeout = 5000');
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database }) });
  return { db, dialect: 'sqlite', close: () => db.destroy() };
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
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  return { db, dialect: 'postgres', close: () => db.destroy() };
}

// Where a test network's guardians keep their stores: each its SQLite file, or (the PostgreSQL flow
// run) each its own database on the test server, named by the `database-url` file in its directory
// as an operator would (packages/guardian-net/src/store-pg.ts). Reads a guardian's nonce rows from
// whichever it is, without going through the guardian.
import Database from 'better-sqlite3';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';

export interface NonceRow {
  session_id: string;
  attempt: number;
  hiding: string;
  binding: string;
  status: 'issued' | 'spent' | 'abandoned';
}

const TIMEOUT_MS = 10_000;

async function admin<T>(url: string, use: (c: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({
    connectionString: url,
    connectionTimeoutMillis: TIMEOUT_MS,
    query_timeout: TIMEOUT_MS,
  });
  await client.connect();
  try {
    return await use(client);
  } finally {
    await client.end();
  }
}

/**
 * A database of its own for each of guardians 1..n on `serverUrl`'s server, written to
 * `<dir>/guardian-<id>/database-url` (0600) before the DKG, so every process of that guardian
 * uses it. Returns the URLs (by id - 1) and a function that drops the databases.
 */
export async function guardianDatabases(
  serverUrl: string,
  dir: string,
  n: number,
): Promise<{ urls: string[]; drop: () => Promise<void> }> {
  const names = Array.from(
    { length: n },
    (_, i) => `guardian_${randomBytes(5).toString('hex')}_${i + 1}`,
  );
  await admin(serverUrl, async (c) => {
    for (const name of names) await c.query(`CREATE DATABASE ${name}`);
  });
  const urls = names.map((name, i) => {
    const url = new URL(serverUrl);
    url.pathname = `/${name}`;
    const gdir = join(dir, `guardian-${i + 1}`);
    mkdirSync(gdir, { recursive: true, mode: 0o700 });
    writeFileSync(join(gdir, 'database-url'), `${url.href}\n`, { mode: 0o600 });
    return url.href;
  });
  return {
    urls,
    drop: () =>
      admin(serverUrl, async (c) => {
        for (const name of names) await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      }),
  };
}

/** Guardian `gdir`'s nonce rows: from its database when `url` names one, else its SQLite file. */
export async function guardianNonceRows(gdir: string, url?: string): Promise<NonceRow[]> {
  if (url)
    return admin(
      url,
      async (c) =>
        (
          await c.query<NonceRow>(
            'SELECT * FROM guardian.nonces ORDER BY created_at, session_id, attempt',
          )
        ).rows,
    );
  const db = new Database(join(gdir, 'store.sqlite'), { readonly: true, fileMustExist: true });
  try {
    return db.prepare('SELECT * FROM nonces').all() as NonceRow[];
  } finally {
    db.close();
  }
}

/** Whether guardian `gdir` keeps a SQLite store (it must not, once its database is PostgreSQL). */
export const hasSqliteStore = (gdir: string) => existsSync(join(gdir, 'store.sqlite'));

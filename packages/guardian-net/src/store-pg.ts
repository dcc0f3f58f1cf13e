// A guardian's store in its own PostgreSQL database (`guardian start --database-url-file`): the
// same tables and the same rules as the SQLite file (store.ts), in a schema of its own created at
// start. Every write is one statement or one transaction, committed (synchronous_commit, the
// server's default, fsyncs it) before the call resolves, so a nonce row is durable before its
// commitment leaves the process. Two requests at once for one session or nonce cannot both
// succeed: inserts are `ON CONFLICT DO NOTHING` on the primary key and state changes are
// conditional updates, each judged by its row count.
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type pg from 'pg';
import { MAX_CLOCK_SKEW_MS } from './envelope';
import { GuardianStore, type NodeStore, type NonceRow, type SessionRow } from './store';

type NodeRow = Record<string, unknown>;

/** Every query, and every wait for a connection, ends within this. */
const QUERY_TIMEOUT_MS = 5_000;
/** Old message nonces are deleted at most this often (each message costs one insert, not two). */
const PRUNE_EVERY_MS = 10_000;
const SCHEMA = /^[a-z_][a-z0-9_]{0,62}$/;

const num = (v: unknown): number => Number(v);
const nonceRow = (r: NodeRow): NonceRow => ({
  session_id: String(r.session_id),
  attempt: num(r.attempt),
  hiding: String(r.hiding),
  binding: String(r.binding),
  status: r.status as NonceRow['status'],
});
const sessionRow = (r: NodeRow): SessionRow => ({
  id: String(r.id),
  message: String(r.message),
  approved: num(r.approved),
  reason: r.reason === null ? null : String(r.reason),
  created_at: num(r.created_at),
  signed_at: r.signed_at === null ? null : num(r.signed_at),
});

export class PgGuardianStore implements NodeStore {
  /** made by `open()`: `pg` is loaded only by a guardian whose store is PostgreSQL (~60 ms) */
  private pool!: pg.Pool;
  private readonly t: { seen: string; sessions: string; nonces: string; facts: string };
  private prunedAt = 0;

  /** `url` is a secret (it may hold a password): it is never logged, nor put in an error. */
  constructor(
    private readonly url: string,
    private readonly schema = 'guardian',
    private readonly onError: (message: string) => void = () => {},
  ) {
    if (!SCHEMA.test(schema)) throw new Error('the store schema must be a lower-case SQL name');
    this.t = {
      seen: `${schema}.seen_messages`,
      sessions: `${schema}.sessions`,
      nonces: `${schema}.nonces`,
      facts: `${schema}.facts`,
    };
  }

  private async q(text: string, values: unknown[] = []): Promise<pg.QueryResult<NodeRow>> {
    return this.pool.query<NodeRow>(text, values);
  }

  async open(): Promise<void> {
    const { default: pg } = await import('pg');
    this.pool = new pg.Pool({
      connectionString: this.url,
      max: 4,
      connectionTimeoutMillis: QUERY_TIMEOUT_MS,
      query_timeout: QUERY_TIMEOUT_MS,
      statement_timeout: QUERY_TIMEOUT_MS,
      idleTimeoutMillis: 30_000,
    });
    // An idle connection that breaks is replaced by the next query; say so, without the URL.
    this.pool.on('error', (e) => this.onError(`store connection lost: ${e.message}`));
    const client = await this.pool.connect();
    try {
      await client.query('BEGIN');
      // Two processes creating the same schema at once would collide on its catalog rows.
      await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [this.schema]);
      await client.query(`CREATE SCHEMA IF NOT EXISTS ${this.schema}`);
      await client.query(`
        CREATE TABLE IF NOT EXISTS ${this.t.seen} (
          sender TEXT NOT NULL, nonce TEXT NOT NULL, ts BIGINT NOT NULL,
          PRIMARY KEY (sender, nonce));
        CREATE TABLE IF NOT EXISTS ${this.t.sessions} (
          id TEXT PRIMARY KEY, message TEXT NOT NULL, approved INTEGER NOT NULL,
          reason TEXT, created_at BIGINT NOT NULL, signed_at BIGINT);
        CREATE TABLE IF NOT EXISTS ${this.t.nonces} (
          session_id TEXT NOT NULL, attempt INTEGER NOT NULL,
          hiding TEXT NOT NULL, binding TEXT NOT NULL,
          status TEXT NOT NULL CHECK (status IN ('issued', 'spent', 'abandoned')),
          created_at BIGINT NOT NULL,
          PRIMARY KEY (session_id, attempt));
        CREATE TABLE IF NOT EXISTS ${this.t.facts} (key TEXT PRIMARY KEY, value TEXT NOT NULL);`);
      await client.query('COMMIT');
    } catch (e) {
      await client.query('ROLLBACK').catch(() => {});
      throw e;
    } finally {
      client.release();
    }
  }

  async abandonIssuedNonces(): Promise<number> {
    const r = await this.q(
      `UPDATE ${this.t.nonces} SET status = 'abandoned' WHERE status = 'issued'`,
    );
    return r.rowCount ?? 0;
  }

  async abandonNonce(sessionId: string, attempt: number): Promise<void> {
    await this.q(
      `UPDATE ${this.t.nonces} SET status = 'abandoned'
       WHERE session_id = $1 AND attempt = $2 AND status = 'issued'`,
      [sessionId, attempt],
    );
  }

  async rememberMessage(sender: string, nonce: string, ts: number): Promise<boolean> {
    const now = Date.now();
    if (now - this.prunedAt >= PRUNE_EVERY_MS) {
      this.prunedAt = now;
      await this.q(`DELETE FROM ${this.t.seen} WHERE ts < $1`, [now - 4 * MAX_CLOCK_SKEW_MS]);
    }
    const r = await this.q(
      `INSERT INTO ${this.t.seen} (sender, nonce, ts) VALUES ($1, $2, $3)
       ON CONFLICT DO NOTHING`,
      [sender, nonce, Math.max(ts, now)],
    );
    return r.rowCount === 1;
  }

  async session(id: string): Promise<SessionRow | undefined> {
    const r = await this.q(`SELECT * FROM ${this.t.sessions} WHERE id = $1`, [id]);
    return r.rows[0] && sessionRow(r.rows[0]);
  }

  async recordDecision(
    id: string,
    message: string,
    approved: boolean,
    reason: string | null,
  ): Promise<SessionRow> {
    const r = await this.q(
      `INSERT INTO ${this.t.sessions} AS s (id, message, approved, reason, created_at)
       VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (id) DO UPDATE SET approved = excluded.approved, reason = excluded.reason
       WHERE s.approved = 0 AND s.message = excluded.message
       RETURNING *`,
      [id, message, approved ? 1 : 0, reason, Date.now()],
    );
    return r.rows[0] ? sessionRow(r.rows[0]) : (await this.session(id))!;
  }

  async nonce(sessionId: string, attempt: number): Promise<NonceRow | undefined> {
    const r = await this.q(
      `SELECT * FROM ${this.t.nonces} WHERE session_id = $1 AND attempt = $2`,
      [sessionId, attempt],
    );
    return r.rows[0] && nonceRow(r.rows[0]);
  }

  async recordIssuedNonce(
    sessionId: string,
    attempt: number,
    hiding: string,
    binding: string,
  ): Promise<boolean> {
    const r = await this.q(
      `INSERT INTO ${this.t.nonces} (session_id, attempt, hiding, binding, status, created_at)
       VALUES ($1, $2, $3, $4, 'issued', $5) ON CONFLICT DO NOTHING`,
      [sessionId, attempt, hiding, binding, Date.now()],
    );
    return r.rowCount === 1;
  }

  /** One statement: the nonce spent and its session stamped, or neither. */
  async spendNonce(sessionId: string, attempt: number): Promise<boolean> {
    const r = await this.q(
      `WITH spent AS (
         UPDATE ${this.t.nonces} SET status = 'spent'
         WHERE session_id = $1 AND attempt = $2 AND status = 'issued' RETURNING session_id),
       stamped AS (
         UPDATE ${this.t.sessions} SET signed_at = $3
         WHERE id = $1 AND EXISTS (SELECT 1 FROM spent) RETURNING id)
       SELECT (SELECT count(*) FROM spent)::int AS spent, (SELECT count(*) FROM stamped)::int AS n`,
      [sessionId, attempt, Date.now()],
    );
    return r.rows[0]?.spent === 1;
  }

  /** One statement: the preprocessed nonce spent, filed under its session, and it stamped. */
  async spendPreprocessed(preId: string, sessionId: string, attempt: number): Promise<boolean> {
    const r = await this.q(
      `WITH spent AS (
         UPDATE ${this.t.nonces} SET status = 'spent', session_id = $2, attempt = $3
         WHERE session_id = $1 AND attempt = 0 AND status = 'issued' RETURNING session_id),
       stamped AS (
         UPDATE ${this.t.sessions} SET signed_at = $4
         WHERE id = $2 AND EXISTS (SELECT 1 FROM spent) RETURNING id)
       SELECT (SELECT count(*) FROM spent)::int AS spent, (SELECT count(*) FROM stamped)::int AS n`,
      [preId, sessionId, attempt, Date.now()],
    );
    return r.rows[0]?.spent === 1;
  }

  async allNonces(): Promise<NonceRow[]> {
    const r = await this.q(
      `SELECT * FROM ${this.t.nonces} ORDER BY created_at, session_id, attempt`,
    );
    return r.rows.map(nonceRow);
  }

  async fact(key: string): Promise<string | null> {
    const r = await this.q(`SELECT value FROM ${this.t.facts} WHERE key = $1`, [key]);
    return r.rows[0] ? String(r.rows[0].value) : null;
  }

  async putFact(key: string, value: string): Promise<void> {
    await this.q(
      `INSERT INTO ${this.t.facts} (key, value) VALUES ($1, $2)
       ON CONFLICT (key) DO UPDATE SET value = excluded.value`,
      [key, value],
    );
  }

  async lastSignedAt(): Promise<number | null> {
    const r = await this.q(`SELECT MAX(signed_at) AS at FROM ${this.t.sessions}`);
    const at = r.rows[0]?.at;
    return at === null || at === undefined ? null : num(at);
  }

  async close(): Promise<void> {
    await this.pool?.end();
  }
}

/** The file in a guardian's directory that names its PostgreSQL database, when it has one. */
export const DATABASE_URL_FILE = 'database-url';

export interface StoreChoice {
  /** the guardian's directory: store.sqlite, or its `database-url` file */
  dir: string;
  /** a file holding the postgres:// URL; default `<dir>/database-url` when that exists */
  databaseUrlFile?: string;
  /** the PostgreSQL schema of its tables (default `guardian`) */
  schema?: string;
  log?: (event: Record<string, unknown>) => void;
}

/**
 * The guardian's store: PostgreSQL when a URL file names its database (read from a file, never a
 * flag or a log line, since a URL can hold a password; the file must be its owner's alone), else
 * the SQLite file `<dir>/store.sqlite`. Tables are made by `open()`.
 */
export function chooseNodeStore(c: StoreChoice): { store: NodeStore; kind: 'sqlite' | 'postgres' } {
  const file = c.databaseUrlFile ?? join(c.dir, DATABASE_URL_FILE);
  if (c.databaseUrlFile === undefined && !existsSync(file))
    return { store: new GuardianStore(join(c.dir, 'store.sqlite')), kind: 'sqlite' };
  if ((statSync(file).mode & 0o077) !== 0)
    throw new Error(`${file} holds a database URL: make it readable by its owner only (chmod 600)`);
  const url = readFileSync(file, 'utf8').trim();
  if (!/^postgres(ql)?:\/\//.test(url)) throw new Error(`${file} must hold one postgres:// URL`);
  const log = c.log ?? (() => {});
  const store = new PgGuardianStore(url, c.schema, (message) =>
    log({ event: 'store-error', message }),
  );
  return { store, kind: 'postgres' };
}

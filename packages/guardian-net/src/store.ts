// A guardian's own store, shared with no other party: one SQLite file beside its share (this file,
// the default), or its own PostgreSQL database (store-pg.ts). It keeps the nonces of messages it
// accepted (replay), the signing sessions it approved, and the state of every FROST nonce it ever
// issued, written before the commitment leaves the process.
import Database from 'better-sqlite3';
import { chmodSync, closeSync, existsSync, openSync } from 'node:fs';
import { MAX_CLOCK_SKEW_MS } from './envelope';

export type NonceStatus = 'issued' | 'spent' | 'abandoned';

export interface NonceRow {
  session_id: string;
  attempt: number;
  hiding: string;
  binding: string;
  status: NonceStatus;
}

export interface SessionRow {
  id: string;
  message: string;
  approved: number;
  reason: string | null;
  created_at: number;
  signed_at: number | null;
}

/** A value now (SQLite, synchronous and cheap) or later (PostgreSQL). */
export type MaybePromise<T> = T | Promise<T>;

/** What a guardian keeps, on either database; each write is committed when it resolves. */
export interface NodeStore {
  /** Creates its tables (PostgreSQL: in its own schema); SQLite does so when it opens. */
  open(): Promise<void>;
  /**
   * Nonces live only in this process's memory; after a restart the ones issued before it are gone
   * for good, and their rows say so. Run once at start, before any request.
   */
  abandonIssuedNonces(): MaybePromise<number>;
  abandonNonce(sessionId: string, attempt: number): MaybePromise<void>;
  /** Records a message nonce; false when this sender already used it. */
  rememberMessage(sender: string, nonce: string, ts: number): MaybePromise<boolean>;
  session(id: string): MaybePromise<SessionRow | undefined>;
  /** An approval stands; a refusal is replaced by a newer decision on the same message. */
  recordDecision(
    id: string,
    message: string,
    approved: boolean,
    reason: string | null,
  ): MaybePromise<SessionRow>;
  nonce(sessionId: string, attempt: number): MaybePromise<NonceRow | undefined>;
  /** Committed before the commitment is released; false if this attempt already has a nonce. */
  recordIssuedNonce(
    sessionId: string,
    attempt: number,
    hiding: string,
    binding: string,
  ): MaybePromise<boolean>;
  /** issued -> spent, committed before the signature share is computed; false if not issued. */
  spendNonce(sessionId: string, attempt: number): MaybePromise<boolean>;
  /**
   * A preprocessed nonce's row (`preId`, attempt 0: preprocess.ts) issued -> spent, filed under the
   * session and attempt it signs, so a session's rows show every nonce that signed for it; committed
   * before the share is computed; false if not issued.
   */
  spendPreprocessed(preId: string, sessionId: string, attempt: number): MaybePromise<boolean>;
  allNonces(): MaybePromise<NonceRow[]>;
  /** A small public fact this guardian shows on /v1/health (its last price), kept across restarts. */
  fact(key: string): MaybePromise<string | null>;
  putFact(key: string, value: string): MaybePromise<void>;
  /** When it last spent a nonce for a share (ms), or null. */
  lastSignedAt(): MaybePromise<number | null>;
  close(): MaybePromise<void>;
}

/** How often the expired message nonces are deleted (a scan of the table), at most. */
const PURGE_EVERY_MS = 1_000;

/** The database's files (main, -wal, -shm), readable by this guardian's user only. */
function ownerOnly(path: string): void {
  for (const file of [path, `${path}-wal`, `${path}-shm`])
    if (existsSync(file)) chmodSync(file, 0o600);
}

/** The SQLite store: synchronous, one file beside the guardian's share. */
export class GuardianStore implements NodeStore {
  readonly db: Database.Database;
  /** Prepared once: compiling a statement cost more than running it, several times a message. */
  private readonly statements = new Map<string, Database.Statement>();
  private purgedAt = 0;

  private sql(text: string): Database.Statement {
    let statement = this.statements.get(text);
    if (!statement) this.statements.set(text, (statement = this.db.prepare(text)));
    return statement;
  }

  constructor(path: string) {
    // Owner-only from its first byte (SQLite gives -wal and -shm the main file's mode); an older
    // start's files are tightened.
    closeSync(openSync(path, 'a', 0o600));
    ownerOnly(path);
    this.db = new Database(path);
    this.db.pragma('journal_mode = WAL');
    ownerOnly(path);
    // Full syncs by default; the signing rows commit unsynced (`unsynced` says why that is safe).
    this.db.pragma('synchronous = FULL');
    this.db.exec(`
      CREATE TABLE IF NOT EXISTS seen_messages (
        sender TEXT NOT NULL, nonce TEXT NOT NULL, ts INTEGER NOT NULL,
        PRIMARY KEY (sender, nonce));
      CREATE TABLE IF NOT EXISTS sessions (
        id TEXT PRIMARY KEY, message TEXT NOT NULL, approved INTEGER NOT NULL,
        reason TEXT, created_at INTEGER NOT NULL, signed_at INTEGER);
      CREATE TABLE IF NOT EXISTS nonces (
        session_id TEXT NOT NULL, attempt INTEGER NOT NULL,
        hiding TEXT NOT NULL, binding TEXT NOT NULL,
        status TEXT NOT NULL CHECK (status IN ('issued', 'spent', 'abandoned')),
        created_at INTEGER NOT NULL,
        PRIMARY KEY (session_id, attempt));
      CREATE TABLE IF NOT EXISTS facts (key TEXT PRIMARY KEY, value TEXT NOT NULL);
    `);
  }

  /** The tables were made when the file opened. */
  open(): Promise<void> {
    return Promise.resolve();
  }

  abandonIssuedNonces(): number {
    return this.sql(`UPDATE nonces SET status = 'abandoned' WHERE status = 'issued'`).run().changes;
  }

  abandonNonce(sessionId: string, attempt: number): void {
    this.sql(
      `UPDATE nonces SET status = 'abandoned'
         WHERE session_id = ? AND attempt = ? AND status = 'issued'`,
    ).run(sessionId, attempt);
  }

  /**
   * Runs `write` as one transaction committed without its own fsync (synchronous=NORMAL for it
   * alone). In WAL mode such a commit survives a crash or kill -9 of this process, and the next
   * fully synced commit makes it durable along with its own frames; only a power cut (or an OS
   * crash) can lose it, together with everything after it. That is safe for every row here, the
   * nonce rows included: a FROST nonce lives only in this process's memory and is dropped from it
   * before its share is computed, so the same event that could lose a nonce row has already lost
   * every nonce; none can be used twice, with or without its row. The two syncs per signing (the
   * nonce issued, then spent) were a guardian's longest wait per co-signing.
   */
  private unsynced<T>(write: () => T): T {
    this.db.pragma('synchronous = NORMAL');
    try {
      return this.db.transaction(write)();
    } finally {
      this.db.pragma('synchronous = FULL');
    }
  }

  /**
   * Records a message nonce; false when this sender already used it. Unsynced: a message replayed
   * after a power cut lost its row finds no nonce in memory to sign with, and a proposal decided
   * again decides the same. Two full syncs per message were most of a guardian's time per call.
   */
  rememberMessage(sender: string, nonce: string, ts: number): boolean {
    const now = Date.now();
    return this.unsynced(() => {
      // Kept a second longer at most: a row kept longer only refuses a replay for longer.
      if (now - this.purgedAt >= PURGE_EVERY_MS) {
        this.sql('DELETE FROM seen_messages WHERE ts < ?').run(now - 4 * MAX_CLOCK_SKEW_MS);
        this.purgedAt = now;
      }
      return (
        this.sql('INSERT OR IGNORE INTO seen_messages (sender, nonce, ts) VALUES (?, ?, ?)').run(
          sender,
          nonce,
          Math.max(ts, now),
        ).changes === 1
      );
    });
  }

  session(id: string): SessionRow | undefined {
    return this.sql('SELECT * FROM sessions WHERE id = ?').get(id) as SessionRow | undefined;
  }

  /**
   * An approval on a session stands: a second proposal with the same id changes nothing. A refusal
   * is replaced by the newer decision on the same message (signing-rounds.ts says why).
   * Unsynced: an approval signs nothing until this guardian issues a nonce for it in this process,
   * which a power cut that loses the row ends too.
   */
  recordDecision(
    id: string,
    message: string,
    approved: boolean,
    reason: string | null,
  ): SessionRow {
    this.unsynced(() =>
      this.sql(
        `INSERT INTO sessions (id, message, approved, reason, created_at)
           VALUES (?, ?, ?, ?, ?)
           ON CONFLICT (id) DO UPDATE SET approved = excluded.approved, reason = excluded.reason
           WHERE sessions.approved = 0 AND sessions.message = excluded.message`,
      ).run(id, message, approved ? 1 : 0, reason, Date.now()),
    );
    return this.session(id)!;
  }

  nonce(sessionId: string, attempt: number): NonceRow | undefined {
    return this.sql('SELECT * FROM nonces WHERE session_id = ? AND attempt = ?').get(
      sessionId,
      attempt,
    ) as NonceRow | undefined;
  }

  /** Committed before the commitment is released; false if this attempt already has a nonce. */
  recordIssuedNonce(sessionId: string, attempt: number, hiding: string, binding: string): boolean {
    return this.unsynced(
      () =>
        this.sql(
          `INSERT OR IGNORE INTO nonces (session_id, attempt, hiding, binding, status, created_at)
             VALUES (?, ?, ?, ?, 'issued', ?)`,
        ).run(sessionId, attempt, hiding, binding, Date.now()).changes === 1,
    );
  }

  /** issued -> spent, committed before the signature share is computed; false if not issued. */
  spendNonce(sessionId: string, attempt: number): boolean {
    return this.unsynced(() => {
      const changed = this.sql(
        `UPDATE nonces SET status = 'spent'
           WHERE session_id = ? AND attempt = ? AND status = 'issued'`,
      ).run(sessionId, attempt).changes;
      if (changed === 1)
        this.sql('UPDATE sessions SET signed_at = ? WHERE id = ?').run(Date.now(), sessionId);
      return changed === 1;
    });
  }

  spendPreprocessed(preId: string, sessionId: string, attempt: number): boolean {
    return this.unsynced(() => {
      const changed = this.sql(
        `UPDATE nonces SET status = 'spent', session_id = ?, attempt = ?
           WHERE session_id = ? AND attempt = 0 AND status = 'issued'`,
      ).run(sessionId, attempt, preId).changes;
      if (changed === 1)
        this.sql('UPDATE sessions SET signed_at = ? WHERE id = ?').run(Date.now(), sessionId);
      return changed === 1;
    });
  }

  /** A small public fact this guardian shows on /v1/health (its last price), kept across restarts. */
  fact(key: string): string | null {
    const row = this.sql('SELECT value FROM facts WHERE key = ?').get(key) as
      { value: string } | undefined;
    return row?.value ?? null;
  }

  /** Unsynced: a fact lost to a power cut only shows an older price until the next read. */
  putFact(key: string, value: string): void {
    this.unsynced(() =>
      this.db
        .prepare(
          'INSERT INTO facts (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value',
        )
        .run(key, value),
    );
  }

  /** When it last gave a signature share (ms), from the rows `spendNonce` writes anyway. */
  lastSignedAt(): number | null {
    const row = this.sql('SELECT MAX(signed_at) AS at FROM sessions').get() as {
      at: number | null;
    };
    return row.at;
  }

  allNonces(): NonceRow[] {
    return this.sql(
      'SELECT * FROM nonces ORDER BY created_at, session_id, attempt',
    ).all() as NonceRow[];
  }

  close(): void {
    this.db.close();
  }
}

/** What a signing session needs of the store. */
export type SessionStore = Pick<
  NodeStore,
  | 'session'
  | 'recordDecision'
  | 'nonce'
  | 'recordIssuedNonce'
  | 'spendNonce'
  | 'spendPreprocessed'
  | 'abandonNonce'
>;

/**
 * The store's sessions and nonces under a prefix, so each guardian set a guardian signs for keeps
 * its own sessions in the one store: a session approved for one set's key is never signed with
 * another's. The first set has no prefix (its rows predate rotation).
 */
export function scopedSessions(store: NodeStore, prefix: string): SessionStore {
  const id = (sessionId: string) => prefix + sessionId;
  return {
    session: (s) => store.session(id(s)),
    recordDecision: (s, message, approved, reason) =>
      store.recordDecision(id(s), message, approved, reason),
    nonce: (s, attempt) => store.nonce(id(s), attempt),
    recordIssuedNonce: (s, attempt, hiding, binding) =>
      store.recordIssuedNonce(id(s), attempt, hiding, binding),
    spendNonce: (s, attempt) => store.spendNonce(id(s), attempt),
    spendPreprocessed: (pre, s, attempt) => store.spendPreprocessed(id(pre), id(s), attempt),
    abandonNonce: (s, attempt) => store.abandonNonce(id(s), attempt),
  };
}

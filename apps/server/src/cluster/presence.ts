// Which instances are running: each holds, for its whole life, a session-level advisory lock named
// after its id on a dedicated connection. When the process dies its connection closes and
// PostgreSQL frees the lock at once, so another instance can tell, without waiting for a lease to
// run out, that work the dead one left (guardian requests in flight, cosign/recover.ts) is
// nobody's now. SQLite has one instance: every other id is a previous run of it.
import { randomBytes } from 'node:crypto';
import type pg from 'pg';
import { sql, type Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { Database } from '../store/schema';

export interface Presence {
  /** This instance's id, new at every start. */
  id: string;
  /** Whether the instance of that id still runs (this one always does). */
  isAlive(id: string): Promise<boolean>;
  close(): Promise<void>;
}

const newId = () => randomBytes(8).toString('hex');

export function localPresence(): Presence {
  const id = newId();
  return { id, isAlive: (other) => Promise.resolve(other === id), close: async () => {} };
}

const key = (id: string) => sql`hashtext(current_schema() || ${`:unit-instance:${id}`})`;

export async function pgPresence(options: {
  db: Kysely<Database>;
  newClient: () => pg.Client;
  log: Logger;
  retryMs: number;
}): Promise<Presence> {
  const id = newId();
  let client: pg.Client | null = null;
  let closed = false;
  let retry: NodeJS.Timeout | null = null;

  const hold = async (first = false): Promise<void> => {
    const next = options.newClient();
    const lost = () => {
      if (client !== next) return;
      client = null;
      void next.end().catch(() => undefined);
      if (closed) return;
      // Until the lock is back, the others may take this instance for dead and settle its
      // requests; the guardian's conditional steps (cosign/ownership.ts) keep that safe.
      options.log.warn('instance presence lost; holding it again');
      retry = setTimeout(() => void hold(), options.retryMs);
      retry.unref();
    };
    next.on('error', lost);
    next.on('end', lost);
    client = next;
    try {
      await next.connect();
      await next.query(`select pg_advisory_lock(hashtext(current_schema() || $1))`, [
        `:unit-instance:${id}`,
      ]);
    } catch (err) {
      if (first) {
        client = null;
        await next.end().catch(() => undefined);
        throw err;
      }
      lost();
    }
  };
  await hold(true);

  return {
    id,
    isAlive: async (other) => {
      if (other === id) return true;
      // Free means nobody holds it: the instance is gone. Taken only to look, and freed at once.
      return options.db.connection().execute(async (connection) => {
        const { rows } = await sql<{
          ok: boolean;
        }>`select pg_try_advisory_lock(${key(other)}) as ok`.execute(connection);
        if (!rows[0]?.ok) return true;
        await sql`select pg_advisory_unlock(${key(other)})`.execute(connection);
        return false;
      });
    },
    close: async () => {
      closed = true;
      if (retry) clearTimeout(retry);
      const c = client;
      client = null;
      await c?.end().catch(() => undefined);
    },
  };
}

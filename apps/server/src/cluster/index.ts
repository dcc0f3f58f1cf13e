// What several instances on one database share, as one object for the composition root: the event
// bus, the leadership of the singleton jobs, and a cluster-wide lock for work that two instances
// must never do at once (first start, devnet writes). SQLite: one process, in-process versions.
import pg from 'pg';
import { sql, type Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { Database } from '../store/schema';
import { LocalEventBus, PgEventBus, type EventBus } from './bus';
import { LocalLeadership, PgLeadership, type Leadership } from './leadership';
import { localPresence, pgPresence, type Presence } from './presence';

export type { EventBus, LiveListener } from './bus';
export type { Job, Leadership } from './leadership';
export type { Presence } from './presence';

/** Runs work while no other instance runs work under the same name. */
export type Exclusive = <T>(name: string, work: () => Promise<T>) => Promise<T>;

export interface Cluster {
  bus: EventBus;
  leadership: Leadership;
  exclusive: Exclusive;
  /** This instance's id, and whether another one still runs. */
  presence: Presence;
  close(): Promise<void>;
}

export interface ClusterOptions {
  db: Kysely<Database>;
  /** postgres://…, or null for SQLite. */
  databaseUrl: string | null;
  /** The PostgreSQL schema the store uses, when not the default. */
  schema?: string;
  log: Logger;
  /** How often a follower tries to take over the jobs (default 3 s) and a lost LISTEN reconnects. */
  retryMs?: number;
}

export const DEFAULT_JOB_RETRY_MS = 3_000;

/** Within one process the JavaScript event loop is the lock: only the names need to queue. */
function localExclusive(): Exclusive {
  const queues = new Map<string, Promise<unknown>>();
  return (name, work) => {
    const previous = queues.get(name) ?? Promise.resolve();
    const result = previous.then(work, work);
    const tail = result.catch(() => undefined);
    queues.set(name, tail);
    void tail.then(() => {
      if (queues.get(name) === tail) queues.delete(name);
    });
    return result;
  };
}

/**
 * A session-level advisory lock on one pooled connection, held while `work` runs on the others.
 * If this process dies its connection closes and PostgreSQL frees the lock.
 */
function pgExclusive(db: Kysely<Database>): Exclusive {
  return (name, work) =>
    db.connection().execute(async (connection) => {
      const key = sql`hashtext(current_schema() || ${`:unit-lock:${name}`})`;
      await sql`select pg_advisory_lock(${key})`.execute(connection);
      try {
        return await work();
      } finally {
        await sql`select pg_advisory_unlock(${key})`.execute(connection);
      }
    });
}

export async function openCluster(options: ClusterOptions): Promise<Cluster> {
  const { db, databaseUrl, log } = options;
  if (!databaseUrl) {
    const bus = new LocalEventBus(log);
    const leadership = new LocalLeadership(log);
    return {
      bus,
      leadership,
      exclusive: localExclusive(),
      presence: localPresence(),
      close: async () => {
        await leadership.close();
        await bus.close();
      },
    };
  }
  const retryMs = options.retryMs ?? DEFAULT_JOB_RETRY_MS;
  const newClient = () =>
    new pg.Client({
      connectionString: databaseUrl,
      // A half-open connection would keep a dead holder's locks until TCP gave up on it.
      keepAlive: true,
      ...(options.schema !== undefined ? { options: `-c search_path=${options.schema}` } : {}),
    });
  const bus = new PgEventBus({ db, newClient, log, retryMs });
  await bus.start();
  const leadership = new PgLeadership({ newClient, log, retryMs });
  const presence = await pgPresence({ db, newClient, log, retryMs });
  return {
    bus,
    leadership,
    exclusive: pgExclusive(db),
    presence,
    close: async () => {
      await leadership.close();
      await bus.close();
      await presence.close();
    },
  };
}

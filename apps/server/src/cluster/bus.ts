// The event bus: how every instance learns of a price tick, a block or a vault change, whichever
// instance saw it, so each can push it to its own browsers (GET /api/events) and keep its copy of
// the price current. SQLite is one instance by construction: an in-process bus. PostgreSQL: NOTIFY
// on the shared database, LISTEN on a dedicated connection per instance.
import { sql, type Kysely } from 'kysely';
import type pg from 'pg';
import type { Logger } from 'pino';
import { parseLiveEvent, type LiveEvent } from '@unit/protocol';
import type { Database } from '../store/schema';

export type LiveListener = (event: LiveEvent) => void;

export interface EventBus {
  /** Delivers the event to every subscriber of every instance, this one included. */
  publish(event: LiveEvent): Promise<void>;
  subscribe(listener: LiveListener): () => void;
  /**
   * Called after the bus reconnected: events sent meanwhile were lost, so whoever caches what
   * they carry (the oracle's latest price) re-reads it from the database.
   */
  onResync(listener: () => void): () => void;
  close(): Promise<void>;
}

class Subscribers {
  private readonly listeners = new Set<LiveListener>();
  private readonly resyncs = new Set<() => void>();

  add(listener: LiveListener): () => void {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  }

  addResync(listener: () => void): () => void {
    this.resyncs.add(listener);
    return () => void this.resyncs.delete(listener);
  }

  deliver(event: LiveEvent, log: Logger): void {
    for (const listener of this.listeners) {
      try {
        listener(event);
      } catch (err) {
        // One failing subscriber (a closed stream) must not keep the event from the others.
        log.error({ err, event: event.type }, 'live event subscriber failed');
      }
    }
  }

  resync(log: Logger): void {
    for (const listener of this.resyncs) {
      try {
        listener();
      } catch (err) {
        log.error({ err }, 'resync failed');
      }
    }
  }
}

/** One process: publishing is delivering, synchronously, as the oracle's own events were. */
export class LocalEventBus implements EventBus {
  private readonly subscribers = new Subscribers();

  constructor(private readonly log: Logger) {}

  async publish(event: LiveEvent): Promise<void> {
    this.subscribers.deliver(event, this.log);
  }

  subscribe(listener: LiveListener): () => void {
    return this.subscribers.add(listener);
  }

  onResync(listener: () => void): () => void {
    return this.subscribers.addResync(listener);
  }

  async close(): Promise<void> {}
}

export interface PgEventBusOptions {
  /** The shared pool: NOTIFY goes through it. */
  db: Kysely<Database>;
  /** A new, unconnected client on the same database and schema, for LISTEN. */
  newClient: () => pg.Client;
  log: Logger;
  /** Pause before reconnecting a lost LISTEN connection. */
  retryMs: number;
}

/**
 * LISTEN/NOTIFY. The channel is named after the schema, because NOTIFY reaches the whole database
 * and several deployments (or test files) may share one. An instance hears its own NOTIFY too, so
 * publishing never delivers locally: every instance sees every event exactly once, in the order
 * PostgreSQL committed them.
 */
export class PgEventBus implements EventBus {
  private readonly subscribers = new Subscribers();
  private client: pg.Client | null = null;
  private channel: string | null = null;
  private retry: NodeJS.Timeout | null = null;
  private closed = false;

  constructor(private readonly options: PgEventBusOptions) {}

  /** Connects and listens; rejects when the database cannot be reached at start. */
  async start(): Promise<void> {
    await this.connect();
  }

  async publish(event: LiveEvent): Promise<void> {
    if (!this.channel) throw new Error('event bus not started');
    // `type json` keeps the payload small (PostgreSQL caps it at 8000 bytes; events are ~100).
    const payload = `${event.type} ${JSON.stringify(event.data)}`;
    await sql`select pg_notify(${this.channel}, ${payload})`.execute(this.options.db);
  }

  subscribe(listener: LiveListener): () => void {
    return this.subscribers.add(listener);
  }

  onResync(listener: () => void): () => void {
    return this.subscribers.addResync(listener);
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.retry) clearTimeout(this.retry);
    this.retry = null;
    const client = this.client;
    this.client = null;
    await client?.end().catch(() => undefined);
  }

  private async connect(): Promise<void> {
    const { log } = this.options;
    const client = this.options.newClient();
    // Errors after connect arrive as events; without a handler they would crash the process.
    client.on('error', (err) => {
      log.warn({ err: String(err) }, 'event bus connection failed');
      this.lost(client);
    });
    client.on('end', () => this.lost(client));
    try {
      await client.connect();
      const { rows } = await client.query<{ schema: string }>('select current_schema() as schema');
      const channel = `unit_live:${rows[0]?.schema ?? 'public'}`;
      await client.query(`listen ${client.escapeIdentifier(channel)}`);
      client.on('notification', (message) => {
        if (message.channel !== channel || message.payload === undefined) return;
        const space = message.payload.indexOf(' ');
        if (space < 0) return;
        const event = parseLiveEvent(
          message.payload.slice(0, space),
          message.payload.slice(space + 1),
        );
        if (event) this.subscribers.deliver(event, log);
      });
      this.channel = channel;
      this.client = client;
    } catch (err) {
      await client.end().catch(() => undefined);
      throw err;
    }
  }

  private lost(client: pg.Client): void {
    if (this.client !== client) return;
    this.client = null;
    void client.end().catch(() => undefined);
    this.reconnectLater();
  }

  private reconnectLater(): void {
    if (this.closed || this.retry) return;
    this.retry = setTimeout(() => {
      this.retry = null;
      if (this.closed) return;
      this.connect().then(
        () => {
          this.options.log.info('event bus reconnected');
          this.subscribers.resync(this.options.log);
        },
        () => this.reconnectLater(),
      );
    }, this.options.retryMs);
    this.retry.unref();
  }
}

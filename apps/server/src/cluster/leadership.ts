// Singleton jobs (the oracle's tick, the liquidation sweep, the devnet miner, the block watcher,
// the Telegram outbox): each runs in exactly one instance at a time. On PostgreSQL an instance runs
// a job while it holds the job's session-level advisory lock on its own dedicated connection; the
// others try again every few seconds, so when the holder dies (its connection closes, PostgreSQL
// frees its locks) another instance takes the job over. SQLite has one instance: every job runs.
import type pg from 'pg';
import type { Logger } from 'pino';

export interface Job {
  /** Stable across versions: instances of two releases must agree on the lock. */
  name: string;
  start(): void | Promise<void>;
  stop(): void | Promise<void>;
}

export interface Leadership {
  /** Registers a job; it starts once this instance leads it (after start()). */
  add(job: Job): void;
  start(): Promise<void>;
  /** The names of the jobs this instance runs now. */
  running(): string[];
  /** Stops every job here and lets the others take them over. */
  close(): Promise<void>;
}

async function startJob(job: Job, log: Logger): Promise<boolean> {
  try {
    await job.start();
    log.info({ job: job.name }, 'job started here');
    return true;
  } catch (err) {
    log.error({ err, job: job.name }, 'job failed to start');
    return false;
  }
}

async function stopJob(job: Job, log: Logger): Promise<void> {
  try {
    await job.stop();
  } catch (err) {
    log.error({ err, job: job.name }, 'job failed to stop');
  }
}

/** One instance: it leads every job. */
export class LocalLeadership implements Leadership {
  private readonly jobs: Job[] = [];
  private readonly started = new Set<Job>();

  constructor(private readonly log: Logger) {}

  add(job: Job): void {
    this.jobs.push(job);
  }

  async start(): Promise<void> {
    for (const job of this.jobs) if (await startJob(job, this.log)) this.started.add(job);
  }

  running(): string[] {
    return [...this.started].map((job) => job.name);
  }

  async close(): Promise<void> {
    for (const job of [...this.started].reverse()) await stopJob(job, this.log);
    this.started.clear();
  }
}

export interface PgLeadershipOptions {
  /** A new, unconnected client on the same database and schema; it holds this instance's locks. */
  newClient: () => pg.Client;
  log: Logger;
  /** How often an instance tries to take the jobs it does not run. */
  retryMs: number;
}

/**
 * The lock key is the hash of the schema and the job's name: advisory locks span the whole
 * database, and two deployments (or two test files) on one database must not lead each other.
 */
const TRY_LOCK = `select pg_try_advisory_lock(hashtext(current_schema() || ':unit-job:' || $1)) as ok`;
const UNLOCK = `select pg_advisory_unlock(hashtext(current_schema() || ':unit-job:' || $1))`;

export class PgLeadership implements Leadership {
  private readonly jobs: Job[] = [];
  private readonly held = new Set<Job>();
  private client: pg.Client | null = null;
  private timer: NodeJS.Timeout | null = null;
  private round: Promise<void> | null = null;
  private closed = false;

  constructor(private readonly options: PgLeadershipOptions) {}

  add(job: Job): void {
    this.jobs.push(job);
  }

  async start(): Promise<void> {
    await this.campaign();
    this.timer = setInterval(() => void this.campaign(), this.options.retryMs);
    this.timer.unref();
  }

  running(): string[] {
    return [...this.held].map((job) => job.name);
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.round;
    for (const job of [...this.held].reverse()) await stopJob(job, this.options.log);
    this.held.clear();
    // Ending the session frees every lock it holds: the other instances take over at their next try.
    const client = this.client;
    this.client = null;
    await client?.end().catch(() => undefined);
  }

  /** One round of tries; rounds never overlap. */
  private campaign(): Promise<void> {
    this.round ??= this.tryJobs()
      .catch((err: unknown) => {
        this.options.log.warn({ err: String(err) }, 'job leadership round failed');
      })
      .finally(() => {
        this.round = null;
      });
    return this.round;
  }

  private async tryJobs(): Promise<void> {
    if (this.closed) return;
    const client = this.client ?? (await this.connect());
    for (const job of this.jobs) {
      // Each try is a new hold on PostgreSQL's side (the locks count), so held jobs are not retried.
      if (this.held.has(job) || this.closed || this.client !== client) continue;
      const { rows } = await client.query<{ ok: boolean }>(TRY_LOCK, [job.name]);
      if (!rows[0]?.ok) continue;
      if (this.closed || this.client !== client) return;
      if (await startJob(job, this.options.log)) this.held.add(job);
      else await client.query(UNLOCK, [job.name]).catch(() => undefined);
    }
  }

  private async connect(): Promise<pg.Client> {
    const client = this.options.newClient();
    client.on('error', (err) => {
      this.options.log.warn({ err: String(err) }, 'job lock connection failed');
      void this.lost(client);
    });
    client.on('end', () => void this.lost(client));
    try {
      await client.connect();
    } catch (err) {
      await client.end().catch(() => undefined);
      throw err;
    }
    this.client = client;
    return client;
  }

  /**
   * The connection that held the locks is gone, and with it the locks: another instance may
   * already run these jobs, so they stop here at once. The next round reconnects and tries again.
   */
  private async lost(client: pg.Client): Promise<void> {
    if (this.client !== client) return;
    this.client = null;
    void client.end().catch(() => undefined);
    const jobs = [...this.held].reverse();
    this.held.clear();
    for (const job of jobs) {
      this.options.log.warn({ job: job.name }, 'job lock lost; stopping the job here');
      await stopJob(job, this.options.log);
    }
  }
}

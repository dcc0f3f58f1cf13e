// The coordinator's pool of each guardian's preprocessed commitments (preprocess.ts): taken one at
// a time, oldest first, each given to one signing session at most. A commitment taken by a signing
// that never put it into a session's list is given back (no guardian has seen it in a list). A
// guardian's batch is fetched in the background whenever its pool runs below `low`; a guardian
// that restarted (another epoch in its answer, or a commitment it no longer holds) has its pool
// emptied, since every commitment it gave before is burned. An empty pool is not an error: the
// signing asks that guardian by the two-round path.
import type { NonceCommitments } from '@noble/curves/abstract/frost.js';
import type { Member } from './guardian-set';

export interface PoolOptions {
  /** commitments kept per guardian (default 24) */
  target?: number;
  /** a refill starts below this (default half the target) */
  low?: number;
  /**
   * A commitment older than this is not used (default 20 minutes, under the guardian's 30):
   * the guardian may have burned it.
   */
  maxAgeMs?: number;
  /** the first retry of a failed refill (default 1 s), doubling up to 5 s */
  retryMs?: number;
  clock?: () => number;
}

/** A guardian's batch: its epoch and commitments, checked as its own and never seen before. */
export type FetchBatch = (
  m: Member,
  count: number,
) => Promise<{ epoch: string; commitments: NonceCommitments[] }>;

interface Entry {
  c: NonceCommitments;
  epoch: string;
  at: number;
}

interface Guardian {
  m: Member;
  entries: Entry[];
  epoch: string | null;
  /** the refill under way, which `fill` waits for */
  filling: Promise<void> | null;
  failures: number;
  retry?: NodeJS.Timeout;
}

/** A guardian back after an outage has its pool again within this (a failed call costs little). */
const MAX_RETRY_MS = 5_000;
const BATCH_LIMIT = 64;

export class CommitmentPool {
  private readonly guardians = new Map<number, Guardian>();
  private readonly target: number;
  private readonly low: number;
  private readonly maxAgeMs: number;
  private readonly retryMs: number;
  private readonly clock: () => number;
  private closed = false;

  constructor(
    members: readonly Member[],
    private readonly fetch: FetchBatch,
    options: PoolOptions = {},
  ) {
    this.target = Math.max(1, Math.min(options.target ?? 24, 4 * BATCH_LIMIT));
    this.low = Math.min(options.low ?? Math.ceil(this.target / 2), this.target);
    this.maxAgeMs = options.maxAgeMs ?? 20 * 60_000;
    this.retryMs = options.retryMs ?? 1_000;
    this.clock = options.clock ?? Date.now;
    for (const m of members)
      this.guardians.set(m.id, { m, entries: [], epoch: null, filling: null, failures: 0 });
  }

  /** How many usable commitments `id`'s pool holds. */
  size(id: number): number {
    const g = this.guardians.get(id);
    if (!g) return 0;
    this.prune(g);
    return g.entries.length;
  }

  /** `id`'s oldest usable commitment, out of the pool; a refill starts when it runs low. */
  take(id: number): NonceCommitments | undefined {
    const g = this.guardians.get(id);
    if (!g) return undefined;
    this.prune(g);
    const entry = g.entries.shift();
    if (g.entries.length < this.low) void this.refill(g);
    return entry?.c;
  }

  /** A commitment taken and never put into a session's list: usable again. */
  giveBack(id: number, c: NonceCommitments): void {
    const g = this.guardians.get(id);
    if (!g || g.epoch === null) return;
    g.entries.unshift({ c, epoch: g.epoch, at: this.clock() });
  }

  /** `id` no longer holds the commitments it gave (a restart): forget them, fetch fresh ones. */
  drop(id: number): void {
    const g = this.guardians.get(id);
    if (!g) return;
    g.entries = [];
    g.epoch = null;
    // It answered just now: fetch at once, whatever back-off an earlier outage left.
    clearTimeout(g.retry);
    delete g.retry;
    g.failures = 0;
    void this.refill(g);
  }

  /** Fills every guardian's pool to the target (the answers that come); for a start and tests. */
  async fill(): Promise<void> {
    await Promise.all([...this.guardians.values()].map((g) => this.refill(g)));
  }

  close(): void {
    this.closed = true;
    for (const g of this.guardians.values()) clearTimeout(g.retry);
  }

  private prune(g: Guardian): void {
    const cutoff = this.clock() - this.maxAgeMs;
    g.entries = g.entries.filter((e) => e.at >= cutoff && e.epoch === g.epoch);
  }

  private refill(g: Guardian): Promise<void> {
    if (this.closed || g.retry) return Promise.resolve();
    g.filling ??= this.fetchMissing(g).finally(() => {
      g.filling = null;
    });
    return g.filling;
  }

  private async fetchMissing(g: Guardian): Promise<void> {
    try {
      while (!this.closed && g.entries.length < this.target) {
        const count = Math.min(BATCH_LIMIT, this.target - g.entries.length);
        const { epoch, commitments } = await this.fetch(g.m, count);
        if (commitments.length === 0) break;
        // Another epoch: the guardian restarted and burned every commitment of the one before.
        if (epoch !== g.epoch) g.entries = [];
        g.epoch = epoch;
        const at = this.clock();
        for (const c of commitments) g.entries.push({ c, epoch, at });
        g.failures = 0;
      }
    } catch {
      // Unreachable or refusing: the signings ask it by the two-round path meanwhile.
      g.failures++;
      const wait = Math.min(this.retryMs * 2 ** (g.failures - 1), MAX_RETRY_MS);
      g.retry = setTimeout(() => {
        delete g.retry;
        void this.refill(g);
      }, wait);
      g.retry.unref();
    }
  }
}

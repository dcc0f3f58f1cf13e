// The quote's price in network mode (GUARDIAN_NETWORK local or external): the
// guardians' price quorum, not this server's feeds. Each guardian reads its own feeds and signs its
// own price; the quorum is the median of at least t of them, fresh and within 3% of one another
// (@unit/protocol price-quorum.ts). A quote then carries those signed prices, in id order, beside
// the oracle's signature: its `price_cents` is their median and its `time` their oldest stamp, so a
// quote's 300 s of life run from its oldest price and its freshness is never overstated. Each
// guardian checks that evidence against the published set before it signs anything.
//
// No quorum (fewer than t guardians answer with agreeing fresh prices): the price is stale and no
// quote is signed, as with a single oracle's stale price. Each round also feeds the app's recorded
// price series (the chart, /api/bitcoin-price, the price events, the sweep: oracle.ts `onQuorum`),
// so the app shows and liquidates at the quorum's price. The devnet's guardians read the devnet market
// (devnet/market.ts), never that series, so they never read back their own median.
import type { Logger } from 'pino';
import { collectPriceQuorum, type PriceQuote, type SignedPrice } from '@unit/guardian-net/price';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { loadIdentity, type GuardianSetBody, type Identity } from '@unit/guardian-net';
import { GUARDIAN_PRICE_MAX_AGE_SECONDS } from '@unit/protocol';
import type { ServerConfig } from '../config';
import { readLocalGuardianSet } from '../network-client/local-network';

/** How often the leading instance renews the quorum on its own (three small GETs a round). */
export const QUORUM_TICK_MS = 5_000;
/** Per guardian, for one price (the quote route waits for the round). */
export const QUORUM_FETCH_TIMEOUT_MS = 3_000;

export interface QuorumPrice {
  priceCents: number;
  /** unix seconds: the oldest stamp among the prices used */
  time: number;
  /** the t or more signed prices, in id order */
  prices: SignedPrice[];
  /** taggedHash("unit/price-quorum", ...) of those prices */
  commitment: string;
}

export interface QuorumSource {
  /** the set's threshold */
  t: number;
  /** the set's size and version, for the guardians-online figure (optional in tests' sources) */
  n?: number;
  version?: number;
  /**
   * fresh: each guardian reads its feeds first, at this coordinator's signed `price/fresh`
   * request (a guardian reads its exchanges out of turn for no one else)
   */
  collect(fresh?: boolean): Promise<PriceQuote>;
}

/**
 * The set's quorum: the first t guardians' prices plus a short grace, each asked with a time-out.
 * A fresh round needs this server's coordinator identity; without one it is a plain round.
 */
export const quorumSourceOf = (
  set: GuardianSetBody,
  coordinator: Identity | null,
  timeoutMs = QUORUM_FETCH_TIMEOUT_MS,
): QuorumSource => ({
  t: set.t,
  n: set.n,
  version: set.version,
  collect: (fresh) =>
    collectPriceQuorum(set, {
      timeoutMs,
      ...(fresh && coordinator ? { freshAs: coordinator } : {}),
    }),
});

export type QuorumNow = { quorum: QuorumPrice } | { stale: string };

/** One round's reach: how many of the set's guardians answered with a fresh, agreeing price. */
export interface GuardiansOnline {
  /** unix ms of the round's end */
  at: number;
  version: number;
  n: number;
  t: number;
  online: number;
}

/** A round older than this says little of who answers now: readiness and metrics ask anew. */
const ROUND_MAX_AGE_MS = 2 * QUORUM_TICK_MS;
/** Before the first quorum, rounds that find none are the guardians starting, said as info. */
export const STARTING_GRACE_MS = 60_000;

export class PriceQuorumFeed {
  private latest: { quorum: QuorumPrice } | null = null;
  /** Why the last round found no quorum; null once one does. */
  private failure: string | null = null;
  private collecting: Promise<void> | null = null;
  /** rounds begun, and the latest whose answer was kept (rounds may end out of order) */
  private rounds = 0;
  private kept = 0;
  private timer: NodeJS.Timeout | null = null;
  private reach: GuardiansOnline | null = null;
  /** Set at the first round: until a quorum or STARTING_GRACE_MS, no quorum is said as info. */
  private startedAt: number | null = null;
  private everQuorum = false;
  private toldStarting = false;
  /** The failure last warned of: each new one is said once, not every round. */
  private warned: string | null = null;
  /** Told the quorum (or why none) after every round, which waits for it (the oracle records). */
  onRound: ((now: QuorumNow) => Promise<void>) | null = null;

  constructor(
    private readonly source: QuorumSource,
    private readonly clock: () => number,
    private readonly log: Logger,
    private readonly startingGraceMs = STARTING_GRACE_MS,
  ) {}

  /** Renews the quorum every QUORUM_TICK_MS until stop() (the oracle's tick job runs it). */
  start(): void {
    if (this.timer) return;
    void this.refresh();
    this.timer = setInterval(() => void this.refresh(), QUORUM_TICK_MS);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /** Asks the guardians now (a caller during a round under way shares it). */
  refresh(): Promise<void> {
    const round: Promise<void> =
      this.collecting ??
      this.collect(false).finally(() => {
        if (this.collecting === round) this.collecting = null;
      });
    this.collecting = round;
    return round;
  }

  /**
   * A round in which each guardian first reads its feeds (the market just moved: the devnet's
   * price set by hand), not waiting for their ticks, nor for a round under way (asked before the
   * move, it may wait on a slow guardian's grace): that round's answer, should it end later, is
   * older and not kept. Callers of refresh() meanwhile share this round.
   */
  async refreshFresh(): Promise<void> {
    const round: Promise<void> = this.collect(true).finally(() => {
      if (this.collecting === round) this.collecting = null;
    });
    this.collecting = round;
    await round;
  }

  /**
   * A current quorum, asking the guardians first only when there is none (the 5 s timer keeps
   * one current, so a quote does not wait on a slow guardian's price).
   */
  async fresh(): Promise<void> {
    // No quorum: one round (shared by every caller meanwhile), each guardian with its time-out.
    if (!('quorum' in this.current())) await this.refresh();
  }

  /**
   * The last quorum while its oldest price is fresh (60 s, the rule each guardian price is held
   * to), else why the price is stale. A round that finds no quorum leaves the last one to age,
   * unless guardians of it answered that they have no fresh price and fewer than t are left.
   */
  current(): QuorumNow {
    const latest = this.latest;
    if (!latest) return { stale: this.failure ?? 'no price quorum collected yet' };
    const age = this.clock() - latest.quorum.time;
    if (age > GUARDIAN_PRICE_MAX_AGE_SECONDS) {
      const why = this.failure ? ` (${this.failure})` : '';
      return { stale: `the guardians' price quorum is ${age} s old${why}` };
    }
    return { quorum: latest.quorum };
  }

  /** The last round's reach while recent, else after a new round (shared, as refresh()). */
  async guardiansOnline(): Promise<GuardiansOnline | null> {
    if (!this.reach || Date.now() - this.reach.at > ROUND_MAX_AGE_MS) await this.refresh();
    return this.reach;
  }

  private async collect(fresh: boolean): Promise<void> {
    await this.round(fresh, ++this.rounds);
    await this.onRound?.(this.current()).catch((err: unknown) =>
      this.log.error({ err }, 'price quorum not recorded'),
    );
  }

  private recordReach(q: PriceQuote): void {
    const { t, n, version } = this.source;
    if (n === undefined) return;
    const left = new Set(q.left.map((l) => l.guardian));
    // A source that threw answered nothing: every guardian counts as unreachable.
    const online = q.answers.length === 0 ? 0 : n - left.size;
    this.reach = { at: Date.now(), version: version ?? 0, n, t, online };
  }

  private async round(fresh: boolean, round: number): Promise<void> {
    this.startedAt ??= Date.now();
    let q: PriceQuote;
    try {
      q = await this.source.collect(fresh);
    } catch (err) {
      q = { valid: false, reason: (err as Error).message, answers: [], left: [] };
    }
    // A round begun before the last one kept says nothing newer: its answers are not kept.
    if (round < this.kept) return;
    this.kept = round;
    this.recordReach(q);
    if (!q.valid) {
      const reason = `no quorum of guardian prices (${q.reason})`;
      // The guardians start after the app listens: their first rounds' silence is no alarm.
      const starting = !this.everQuorum && Date.now() - this.startedAt! < this.startingGraceMs;
      if (starting && !this.toldStarting)
        this.log.info({ reason }, 'waiting for the guardians to start and sign their first prices');
      else if (!starting && this.warned !== reason)
        this.log.warn({ reason, left: q.left }, 'no price quorum this round');
      this.toldStarting = true;
      if (!starting) this.warned = reason;
      this.failure = reason;
      // A guardian that answers it has no fresh price withdraws its price from the last quorum
      // (one that cannot be reached withdraws nothing: its signed price ages out by itself).
      const withdrawn = new Set(q.answers.flatMap((a) => (a.noPrice ? [a.guardian] : [])));
      const kept = this.latest?.quorum.prices.filter((p) => !withdrawn.has(p.guardian)) ?? [];
      if (kept.length < this.source.t) this.latest = null;
      return;
    }
    if (!this.latest || this.failure)
      this.log.info({ priceCents: q.priceCents, left: q.left }, 'price quorum');
    this.failure = null;
    this.warned = null;
    this.everQuorum = true;
    const { priceCents, time, prices, commitment } = q;
    this.latest = { quorum: { priceCents, time, prices, commitment } };
  }
}

/** Network mode's quorum of the set in GUARDIAN_DIR (verified as the signer's is); off: none. */
export function priceQuorumFeedOf(config: ServerConfig, log: Logger): PriceQuorumFeed | null {
  if (config.guardianNetwork.mode === 'off') return null;
  const set = readLocalGuardianSet(config);
  if (!set) throw new Error(`no guardian set in ${config.guardianNetwork.dir}`);
  const file = path.join(config.guardianNetwork.dir, 'coordinator', 'identity.json');
  const coordinator = existsSync(file) ? loadIdentity(file) : null;
  const source = quorumSourceOf(set, coordinator);
  return new PriceQuorumFeed(source, () => Math.floor(Date.now() / 1000), log);
}

// The price oracle: keeps the stored price series current, answers history by SPEC §9 interval,
// and signs quotes that reveal a vault's threshold secret once the price reaches it. A stale price
// (live feeds, no quorum, a stopped devnet feed) records nothing, sweeps nothing, signs nothing.
import { EventEmitter } from 'node:events';
import { bytesToHex } from '@noble/hashes/utils.js';
import type { Kysely } from 'kysely';
import { DomainError } from '../errors';
import type { Logger } from 'pino';
import type { OracleQuoteDto, PriceHistoryDto, PriceStaleReason, TimePeriod } from '@unit/protocol';
import type { Database } from '../store/schema';
import { insertPricePoints, latestPricePoint, type PricePoint } from '../store/prices';
import { isLivePriceSource, type LivePriceSource, type PriceSource } from './price-source';
import { FEED_STOPPED, StalePriceError, staleCauseOf } from './stale-price';
import { fillSimulatedHistory } from './simulated-history';
import { PriceHistory } from './price-history';
import { thresholdHash, thresholdSecret } from '@unit/bitcoin';
import { signQuote, verifyQuote, type OracleKeys } from './keys';
import type { NetworkOracles } from './network-oracles';
import { ORACLE_QUOTE_MAX_AGE_SECONDS, type SignedQuote } from '@unit/protocol';
import type { GuardianPriceDto } from '@unit/protocol/wire';
import type { PriceQuorumFeed, QuorumNow } from './quorum';
import type { DevnetMarket } from '../devnet/market';
import {
  quorumPoint,
  quorumSeriesStale,
  setMarket,
  startMarket,
  tickMarket,
} from './network-series';

/** A quote older than this is refused by the guardian (CONSTANTS.md: oracle quote max age). */
export const QUOTE_MAX_AGE_SECONDS = ORACLE_QUOTE_MAX_AGE_SECONDS;
/** Old prices are thinned at most this often (price-history.ts says what is kept). */
const THIN_EVERY_SECONDS = 600;
const NO_PRICE_YET: PriceHistoryDto = { data: [], change: 0, error: 'No price yet' };

export interface OracleOptions {
  db: Kysely<Database>;
  source: PriceSource | LivePriceSource;
  keys: OracleKeys;
  startPriceCents: number;
  tickMs: number;
  log: Logger;
  /** unix seconds; injectable for tests */
  clock?: () => number;
  /** network mode: quotes and the recorded series are the guardians' quorum (network-series.ts) */
  quorum?: PriceQuorumFeed | null;
  /** network mode on the devnet: the market the guardians read; the devnet's price sets it */
  market?: DevnetMarket | null;
  /** With the guardian network: the guardians are the oracles of every vault's liquidation leaves. */
  network?: NetworkOracles;
}

export { StalePriceError } from './stale-price';

export interface OracleEvents {
  tick: [PricePoint];
  stale: [PricePoint]; // was fresh, is not any more: the page is told at once, with the cause
}

export class Oracle extends EventEmitter<OracleEvents> {
  private current: PricePoint | null = null;
  private timer: NodeJS.Timeout | null = null;
  private readonly clock: () => number;
  /** Why the live price is not fresh; null while it is (a simulated price always is). */
  private staleReason: string | null = null;
  private ticking: Promise<PricePoint | null> | null = null;
  private readonly prices: PriceHistory;
  private thinnedAt = 0;
  private thinning: Promise<unknown> | null = null;
  /** Network mode: whether this instance records the quorum (it leads the price tick). */
  private recording = false;
  /** Devnet control: the simulated feed gives no price (setFeedRunning). */
  private feedStopped = false;

  constructor(private readonly options: OracleOptions) {
    super();
    this.clock = options.clock ?? (() => Math.floor(Date.now() / 1000));
    this.prices = new PriceHistory(options.db);
    if (options.quorum) options.quorum.onRound = (now) => this.onQuorum(now);
  }

  get pubkey(): string {
    return this.options.keys.pubkey;
  }

  /** load() then ticks (live: the feeds are read once before the server answers; no back-fill). */
  async start(): Promise<void> {
    await this.load();
    this.startTicking();
  }

  /** Back-fills a year at first start and fills any gap, without ticking (the tick job's leader ticks). */
  async load(): Promise<void> {
    const { db, source, startPriceCents, log } = this.options;
    const now = this.clock();
    const latest = await latestPricePoint(db);
    if (isLivePriceSource(source)) {
      this.current = latest;
      this.staleReason = 'no price read yet';
      await this.tick();
    } else if (this.options.quorum && latest) {
      this.current = latest; // network mode: the quorum's points only, no simulated gap fill
    } else {
      this.current = await fillSimulatedHistory({ db, source, latest, now, startPriceCents, log });
    }
    // Network mode: stale until a quorum is recorded; the devnet market starts at the last price.
    if (this.options.quorum) this.staleReason = 'no price quorum recorded yet';
    await startMarket(this.options.market, this.current);
    this.thinOldPrices();
  }

  /** Ticks every tickMs (none when 0) until stop(). */
  startTicking(): void {
    const { log } = this.options;
    if (this.timer === null && this.options.tickMs > 0) {
      this.timer = setInterval(() => {
        this.tick().catch((err: unknown) => log.error({ err }, 'price tick failed'));
      }, this.options.tickMs);
      this.timer.unref();
    }
    // Network mode: the guardians' quorum is renewed (and recorded) on its own timer.
    this.recording = true;
    this.options.quorum?.start();
  }

  /** Stops ticking and waits for a thinning under way (the store closes next). */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.recording = false;
    this.options.quorum?.stop();
    await this.thinning;
  }

  /** Starts thinning old prices in the background unless it ran lately or is running. */
  private thinOldPrices(): void {
    const now = this.clock();
    if (this.thinning || now - this.thinnedAt < THIN_EVERY_SECONDS) return;
    this.thinnedAt = now;
    this.thinning = this.prices
      .thin(now)
      .catch((err: unknown) => this.options.log.error({ err }, 'price thinning failed'))
      .finally(() => {
        this.thinning = null;
      });
  }

  /** A point another instance recorded (the bus): the price moves forward only; no tick emitted. */
  observe(point: PricePoint): void {
    if (this.current && point.timestamp < this.current.timestamp) return;
    const newer = point.timestamp > (this.current?.timestamp ?? 0);
    this.current = point;
    // A point the leader recorded was fresh then (network mode: a new one); its age says the rest.
    if (isLivePriceSource(this.options.source) || (this.options.quorum && newer))
      this.staleReason = null;
  }

  async refresh(): Promise<void> {
    const latest = await latestPricePoint(this.options.db);
    if (latest) this.observe(latest);
  }

  /** The latest price; start() or load() must have run. */
  price(): PricePoint {
    if (!this.current) throw new StalePriceError(this.staleReason ?? 'oracle not started');
    return this.current;
  }

  latest(): PricePoint | null {
    return this.current;
  }

  get stale(): boolean {
    return this.whyStale() !== null;
  }

  /** Why the price may not be relied on, as the page is told it; null while it is fresh. */
  get staleCause(): PriceStaleReason | null {
    return this.whyStale() === null ? null : staleCauseOf(Boolean(this.options.quorum));
  }

  /** Devnet control: off mode's simulated feed stops (stale at once, as a silent live feed) or ticks. */
  async setFeedRunning(running: boolean): Promise<void> {
    if (this.options.quorum || isLivePriceSource(this.options.source))
      throw new DomainError(
        'bad_request',
        'Only the simulated price feed of off mode can be stopped.',
      );
    this.feedStopped = !running;
    await (running ? this.tick() : this.markStale(FEED_STOPPED));
  }

  /**
   * Why a price may not be relied on, or null: a round that was not fresh, or a live price older than
   * two ticks (a leader that records nothing or has died leaves the other instances' points to age).
   */
  private whyStale(): string | null {
    if (this.staleReason !== null) return this.staleReason;
    if (this.options.quorum) return quorumSeriesStale(this.current, this.clock());
    const { source, tickMs } = this.options;
    if (!isLivePriceSource(source) || !this.current || tickMs <= 0) return null;
    const age = this.clock() - this.current.timestamp;
    return age * 1000 > 2 * tickMs ? `no fresh price for ${age} s` : null;
  }

  /** Appends the next point and tells subscribers; one not fresh records nothing (null). No overlaps. */
  async tick(): Promise<PricePoint | null> {
    if (this.ticking) return this.ticking;
    this.ticking = this.nextPoint().finally(() => (this.ticking = null));
    return this.ticking;
  }

  private async nextPoint(): Promise<PricePoint | null> {
    const { source, log } = this.options;
    // Network mode: the quorum's rounds record; a tick moves only the devnet's market.
    if (this.options.quorum) {
      await tickMarket(this.options.market, source, this.clock());
      return null;
    }
    if (this.feedStopped) return null;
    if (!isLivePriceSource(source)) {
      const previous = this.price();
      const timestamp = Math.max(this.clock(), previous.timestamp + 1);
      return this.record({ timestamp, priceCents: source.next(previous, timestamp) });
    }
    const reading = await source.read();
    if (!reading.fresh) {
      if (this.staleReason === null || this.staleReason !== reading.reason)
        log.warn({ reason: reading.reason, answers: reading.answers }, 'price is stale');
      this.markStale(reading.reason);
      return null;
    }
    if (this.staleReason !== null) log.info({ answers: reading.answers }, 'price is fresh');
    const timestamp = Math.max(this.clock(), (this.current?.timestamp ?? 0) + 1);
    return this.record({ timestamp, priceCents: reading.priceCents });
  }

  /** Devnet control: sets the price now, as a tick would; network mode: the market (setMarket). */
  async setPrice(priceCents: number): Promise<PricePoint> {
    const { quorum, market } = this.options;
    if (quorum && market) return setMarket(market, quorum, { timestamp: this.clock(), priceCents });
    if (this.feedStopped) throw new StalePriceError(FEED_STOPPED);
    const timestamp = Math.max(this.clock(), (this.current?.timestamp ?? 0) + 1);
    return this.record({ timestamp, priceCents });
  }

  /** GET /api/devnet/market: what the devnet's guardians read (off mode: the app's own price). */
  async marketPrice(): Promise<PricePoint> {
    return (await this.options.market?.get()) ?? this.price();
  }

  /** A quorum round's outcome: the leading instance records it (network-series.ts). */
  private async onQuorum(now: QuorumNow): Promise<void> {
    if (!this.recording) return;
    if ('stale' in now) {
      if (this.staleReason === null) this.options.log.warn({ reason: now.stale }, 'price is stale');
      return this.markStale(now.stale);
    }
    const point = quorumPoint(this.current, now.quorum, this.staleReason !== null);
    if (point) await this.record(point);
  }

  private markStale(reason: string): void {
    const wasFresh = this.staleReason === null;
    this.staleReason = reason;
    if (wasFresh && this.current) this.emit('stale', this.current);
  }

  private async record(point: PricePoint): Promise<PricePoint> {
    await insertPricePoints(this.options.db, [point]);
    this.current = point;
    this.staleReason = null;
    this.emit('tick', point);
    this.thinOldPrices();
    return point;
  }

  async history(period: TimePeriod): Promise<PriceHistoryDto> {
    if (!this.current) return NO_PRICE_YET;
    return this.prices.answer(period, this.clock(), this.price());
  }

  /** history() as JSON, the same bytes for every request until the next tick or bucket. */
  async historyJson(period: TimePeriod): Promise<string> {
    if (!this.current) return JSON.stringify(NO_PRICE_YET);
    return this.prices.json(period, this.clock(), this.price());
  }

  /**
   * The guardian's check that a quote came from this oracle. While the price is stale it refuses
   * every quote, even one signed while it was fresh, so nothing is co-signed until it is fresh.
   */
  verifyQuote(quote: SignedQuote): boolean {
    const stale = this.whyStale();
    if (stale !== null) throw new StalePriceError(stale);
    return verifyQuote(this.options.keys.pubkey, quote);
  }

  /** hash160 of the threshold secret: the vault's liquidation leaf commits to it. */
  thresholdHash(thCents: bigint | number, stamp: number): Uint8Array {
    return thresholdHash(thresholdSecret(this.options.keys.oracleSecret, BigInt(thCents), stamp));
  }

  /** The threshold secret once the current price has reached the threshold; else null. */
  revealedSecret(
    thCents: bigint | number,
    stamp: number,
    priceCents = this.price().priceCents,
  ): Uint8Array | null {
    const th = BigInt(thCents);
    if (th <= 0n || BigInt(priceCents) > th) return null;
    return thresholdSecret(this.options.keys.oracleSecret, th, stamp);
  }

  /**
   * The threshold hashes a vault of (th, stamp) commits to, one liquidation leaf each: with the
   * guardian network the set's oracles' (network-oracles.ts), else this oracle's one.
   */
  async thresholdHashes(thCents: bigint | number, stamp: number): Promise<Uint8Array[]> {
    const { network } = this.options;
    return network ? network.hashes(Number(thCents), stamp) : [this.thresholdHash(thCents, stamp)];
  }

  /** The revealed threshold secret, or null: with the network, from a guardian whose own price allows. */
  async revealSecret(thCents: bigint | number, stamp: number): Promise<Uint8Array | null> {
    const { network } = this.options;
    return network ? network.secret(Number(thCents), stamp) : this.revealedSecret(thCents, stamp);
  }

  /** A quote as served: with the network, the oracles' hashes and statements, and no secret of ours. */
  async withOracleHashes(quote: OracleQuoteDto): Promise<OracleQuoteDto> {
    const commitment = await this.networkCommitment(quote.th, quote.ts);
    return commitment ? { ...quote, ...commitment, secret: null } : quote;
  }

  /** With the network, the oracles' hashes of (th, ts) and their signed statements; else null. */
  async networkCommitment(th: number, ts: number) {
    const { network } = this.options;
    // Stamp 0 is no vault's: it is how a guardian starting up reads the oracle's key (chain-view.ts),
    // before the guardians, whose hashes these are, answer.
    if (!network || ts === 0) return null;
    const { hashes, statements } = await network.commitment(th, ts);
    return { threshold_hash: hashes[0]!, threshold_hashes: hashes, oracle_statements: statements };
  }

  /** GET /api/oracle/quote: signed price, threshold hash, and the secret once price <= th. */
  quote(th: number, ts: number): OracleQuoteDto {
    const { keys } = this.options;
    const stale = this.options.quorum ? null : this.whyStale(); // network: quotedPrice's own
    if (stale !== null) throw new StalePriceError(stale);
    const { timestamp, priceCents, quorum } = this.quotedPrice();
    const signed = signQuote(keys, { price_cents: priceCents, time: timestamp, th, ts });
    // th 0 means no debt: never revealed (docs/protocol.md).
    const secret = this.revealedSecret(th, ts, priceCents);
    return {
      ...signed,
      threshold_hash: bytesToHex(this.thresholdHash(th, ts)),
      is_expired: this.clock() - ts > QUOTE_MAX_AGE_SECONDS,
      secret: secret ? bytesToHex(secret) : null,
      oracle_pubkey: keys.pubkey,
      ...(quorum ? { quorum } : {}),
    };
  }

  /** Network mode: quotes carry the guardians' price quorum, and state records commit to it. */
  get quotesQuorum(): boolean {
    return Boolean(this.options.quorum);
  }

  /** Network mode: asks the guardians for their quorum now (a test's or a caller's refresh). */
  async refreshQuorum(): Promise<void> {
    await this.options.quorum?.refresh();
  }

  /** quote() once the guardians' quorum is current (network mode asks them if it is not). */
  async quoteFresh(th: number, ts: number): Promise<OracleQuoteDto> {
    await this.options.quorum?.fresh();
    return this.quote(th, ts);
  }

  /** The price a quote states: this oracle's own, or in network mode the guardians' quorum. */
  private quotedPrice(): PricePoint & { quorum?: GuardianPriceDto[] } {
    const feed = this.options.quorum;
    if (!feed) return this.price();
    const now = feed.current();
    if ('stale' in now) throw new StalePriceError(now.stale);
    const { time, priceCents, prices } = now.quorum;
    return { timestamp: time, priceCents, quorum: prices };
  }
}

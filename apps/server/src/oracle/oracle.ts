// The price oracle: keeps the stored price series current, answers history by SPEC §9 interval,
// and signs quotes that reveal a vault's threshold secret once the price reaches it.
import { EventEmitter } from 'node:events';
import { bytesToHex } from '@noble/hashes/utils.js';
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { OracleQuoteDto, PriceHistoryDto, TimePeriod } from '@unit/protocol';
import type { Database } from '../store/schema';
import { insertPricePoints, latestPricePoint, type PricePoint } from '../store/prices';
import type { PriceSource } from './price-source';
import { backfillTimestamps } from './intervals';
import { PriceHistory } from './price-history';
import { thresholdHash, thresholdSecret } from '@unit/bitcoin';
import { signQuote, verifyQuote, type OracleKeys } from './keys';
import { ORACLE_QUOTE_MAX_AGE_SECONDS, type SignedQuote } from '@unit/protocol';

/** A quote older than this is refused by the guardian (CONSTANTS.md: oracle quote max age). */
export const QUOTE_MAX_AGE_SECONDS = ORACLE_QUOTE_MAX_AGE_SECONDS;
/** Gap fill after downtime uses 5-minute points (the finest chart bucket), capped in count. */
const GAP_STEP_SECONDS = 300;
const GAP_MAX_POINTS = 10_000;
/** Old prices are thinned at most this often (price-history.ts says what is kept). */
const THIN_EVERY_SECONDS = 600;

export interface OracleOptions {
  db: Kysely<Database>;
  source: PriceSource;
  keys: OracleKeys;
  startPriceCents: number;
  tickMs: number;
  log: Logger;
  /** unix seconds; injectable for tests */
  clock?: () => number;
}

export interface OracleEvents {
  tick: [PricePoint];
}

export class Oracle extends EventEmitter<OracleEvents> {
  private current: PricePoint | null = null;
  private timer: NodeJS.Timeout | null = null;
  private readonly clock: () => number;
  private readonly prices: PriceHistory;
  private thinnedAt = 0;
  private thinning: Promise<unknown> | null = null;

  constructor(private readonly options: OracleOptions) {
    super();
    this.clock = options.clock ?? (() => Math.floor(Date.now() / 1000));
    this.prices = new PriceHistory(options.db);
  }

  get pubkey(): string {
    return this.options.keys.pubkey;
  }

  /** Back-fills a year at first start, fills any downtime gap, then ticks. */
  async start(): Promise<void> {
    const { db, source, startPriceCents, log } = this.options;
    const now = this.clock();
    const latest = await latestPricePoint(db);
    if (!latest) {
      const anchor = { timestamp: now, priceCents: startPriceCents };
      const history = source.history(anchor, backfillTimestamps(now));
      await insertPricePoints(db, [...history, anchor]);
      this.current = anchor;
      log.info({ points: history.length + 1, source: source.name }, 'price history back-filled');
    } else {
      this.current = latest;
      const gap: PricePoint[] = [];
      const step = Math.max(GAP_STEP_SECONDS, Math.ceil((now - latest.timestamp) / GAP_MAX_POINTS));
      let previous = latest;
      for (let t = latest.timestamp + step; t <= now; t += step) {
        previous = { timestamp: t, priceCents: source.next(previous, t) };
        gap.push(previous);
      }
      if (gap.length > 0) {
        await insertPricePoints(db, gap);
        this.current = previous;
        log.info({ points: gap.length }, 'price gap filled');
      }
    }
    this.thinOldPrices();
    if (this.options.tickMs > 0) {
      this.timer = setInterval(() => {
        this.tick().catch((err: unknown) => log.error({ err }, 'price tick failed'));
      }, this.options.tickMs);
      this.timer.unref();
    }
  }

  /** Stops ticking and waits for a thinning under way (the store closes next). */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
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

  /** The latest price; start() must have run. */
  price(): PricePoint {
    if (!this.current) throw new Error('oracle not started');
    return this.current;
  }

  /** Appends the next simulated point and tells subscribers (the liquidation engine). */
  async tick(): Promise<PricePoint> {
    const previous = this.price();
    const timestamp = Math.max(this.clock(), previous.timestamp + 1);
    return this.record({ timestamp, priceCents: this.options.source.next(previous, timestamp) });
  }

  /** Devnet control: sets the price now, as a tick would. */
  async setPrice(priceCents: number): Promise<PricePoint> {
    const timestamp = Math.max(this.clock(), this.price().timestamp + 1);
    return this.record({ timestamp, priceCents });
  }

  private async record(point: PricePoint): Promise<PricePoint> {
    await insertPricePoints(this.options.db, [point]);
    this.current = point;
    this.emit('tick', point);
    this.thinOldPrices();
    return point;
  }

  async history(period: TimePeriod): Promise<PriceHistoryDto> {
    return this.prices.answer(period, this.clock(), this.price());
  }

  /** history() as JSON, the same bytes for every request until the next tick or bucket. */
  async historyJson(period: TimePeriod): Promise<string> {
    return this.prices.json(period, this.clock(), this.price());
  }

  /** The guardian's check that a quote came from this oracle. */
  verifyQuote(quote: SignedQuote): boolean {
    return verifyQuote(this.options.keys.pubkey, quote);
  }

  /** hash160 of the threshold secret: the vault's liquidation leaf commits to it. */
  thresholdHash(thCents: bigint | number, stamp: number): Uint8Array {
    return thresholdHash(thresholdSecret(this.options.keys.oracleSecret, BigInt(thCents), stamp));
  }

  /** The threshold secret once the current price has reached the threshold; else null. */
  revealedSecret(thCents: bigint | number, stamp: number): Uint8Array | null {
    const th = BigInt(thCents);
    if (th <= 0n || BigInt(this.price().priceCents) > th) return null;
    return thresholdSecret(this.options.keys.oracleSecret, th, stamp);
  }

  /** GET /api/oracle/quote: signed price, threshold hash, and the secret once price <= th. */
  quote(th: number, ts: number): OracleQuoteDto {
    const { keys } = this.options;
    const { timestamp, priceCents } = this.price();
    const signed = signQuote(keys, { price_cents: priceCents, time: timestamp, th, ts });
    // th 0 means no debt: never revealed (docs/protocol.md).
    const secret = this.revealedSecret(th, ts);
    return {
      ...signed,
      threshold_hash: bytesToHex(this.thresholdHash(th, ts)),
      is_expired: this.clock() - ts > QUOTE_MAX_AGE_SECONDS,
      secret: secret ? bytesToHex(secret) : null,
      oracle_pubkey: keys.pubkey,
    };
  }
}

// A guardian's own oracle: it reads its own exchange feeds every tick (each read with a time-out),
// and signs each fresh reading with its identity key. Nothing here trusts another guardian or the
// coordinator: the price a guardian serves and decides by is the one its own feeds gave it.
import {
  GUARDIAN_PRICE_MAX_AGE_SECONDS,
  guardianPriceProblem,
  PRICE_MAX_SPREAD_BASIS_POINTS,
} from '@unit/protocol';
import { ProtocolError } from '../envelope';
import { FeedsPriceSource, type PriceFeed } from './feeds';
import { signPrice, type SignedPrice } from './signed-price';

/** Today's oracle tick (PRICE_TICK's default). */
export const DEFAULT_PRICE_TICK_MS = 30_000;
/** A feed that has not answered in this time is not fresh this round. */
export const DEFAULT_FEED_TIMEOUT_MS = 5_000;
/**
 * A read on demand (the coordinator's `price/fresh` message) starts at most one round this often,
 * however often a coordinator asks: the exchanges are read about once a tick, not per request.
 */
export const MIN_FRESH_READ_MS = 2_000;

export interface OwnPriceOptions {
  guardian: number;
  secretKey: Uint8Array;
  /** the set version the price is signed for (it changes once, at the end of the DKG) */
  setVersion: () => number;
  feeds: PriceFeed[];
  tickMs?: number;
  timeoutMs?: number;
  maxSpreadBasisPoints?: number;
  log: (event: Record<string, unknown>) => void;
  /** each fresh reading, signed (the node keeps the last one in its store) */
  onPrice?: (price: SignedPrice) => void;
  /** unix seconds; injectable for tests */
  clock?: () => number;
}

export type OwnPrice = { fresh: true; price: SignedPrice } | { fresh: false; reason: string };

export class OwnPriceOracle {
  private latest: SignedPrice | null = null;
  private staleReason = 'no price read yet';
  private timer: NodeJS.Timeout | null = null;
  private reading: Promise<void> | null = null;
  /** Date.now() when the last round began. */
  private startedAt = 0;
  /** Date.now() when the last round started on demand (readFresh) began. */
  private forcedAt = 0;
  private readonly source: FeedsPriceSource;
  private readonly clock: () => number;

  constructor(private readonly o: OwnPriceOptions) {
    this.clock = o.clock ?? (() => Math.floor(Date.now() / 1000));
    this.source = new FeedsPriceSource({
      feeds: o.feeds,
      maxSpreadBasisPoints: o.maxSpreadBasisPoints ?? PRICE_MAX_SPREAD_BASIS_POINTS,
      timeoutMs: o.timeoutMs ?? DEFAULT_FEED_TIMEOUT_MS,
      clock: this.clock,
    });
  }

  /** Reads once, then every tick until stop(). */
  start(): void {
    // A round that throws is logged and the next tick tries again; the guardian keeps serving.
    const tick = () =>
      void this.read().catch((e: unknown) =>
        this.o.log({ event: 'price-error', message: (e as Error).message }),
      );
    tick();
    this.timer ??= setInterval(tick, this.o.tickMs ?? DEFAULT_PRICE_TICK_MS);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.reading;
  }

  /** One round of the feeds; rounds never overlap. */
  read(): Promise<void> {
    if (!this.reading) this.startedAt = Date.now();
    this.reading ??= this.round().finally(() => (this.reading = null));
    return this.reading;
  }

  /**
   * Until a round that began after this call has ended: the coordinator asks so when the market
   * just moved (the devnet's price set by hand), instead of waiting for the next tick. A round
   * already under way may have read the feeds before the move, so it does not count. Callers
   * meanwhile share rounds, and rounds started here are at least MIN_FRESH_READ_MS apart.
   */
  async readFresh(): Promise<void> {
    const asked = Date.now();
    while (this.startedAt < asked) {
      const wait = this.forcedAt + MIN_FRESH_READ_MS - Date.now();
      if (this.reading) await this.reading.catch(() => undefined);
      else if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      else {
        this.forcedAt = Date.now();
        await this.read().catch(() => undefined);
      }
    }
    await this.reading?.catch(() => undefined);
  }

  private async round(): Promise<void> {
    const reading = await this.source.read();
    if (!reading.fresh) {
      if (reading.reason !== this.staleReason)
        this.o.log({ event: 'price-stale', reason: reading.reason, answers: reading.answers });
      this.staleReason = reading.reason;
      return;
    }
    const changed = this.latest?.priceCents !== reading.priceCents;
    this.latest = signPrice(this.o.secretKey, {
      guardian: this.o.guardian,
      setVersion: this.o.setVersion(),
      priceCents: reading.priceCents,
      time: this.clock(),
    });
    this.o.onPrice?.(this.latest);
    if (changed || this.staleReason !== '')
      this.o.log({ event: 'price', priceCents: reading.priceCents, time: this.latest.time });
    this.staleReason = '';
  }

  /**
   * The latest signed price while it is fresh: its last round was fresh and it is at most
   * GUARDIAN_PRICE_MAX_AGE_SECONDS old (the protocol's rule, the same the quorum applies).
   */
  current(): OwnPrice {
    if (this.staleReason !== '') return { fresh: false, reason: this.staleReason };
    let p = this.latest!;
    // The DKG's end moves the set version from the roster's 0 to 1: the same reading, signed anew.
    if (p.setVersion !== this.o.setVersion())
      p = this.latest = signPrice(this.o.secretKey, { ...p, setVersion: this.o.setVersion() });
    const problem = guardianPriceProblem(p, this.clock(), GUARDIAN_PRICE_MAX_AGE_SECONDS);
    return problem ? { fresh: false, reason: problem } : { fresh: true, price: p };
  }

  /** The last price read, fresh or not, for /v1/health. */
  last(): SignedPrice | null {
    return this.latest;
  }
}

/**
 * GET /v1/price, and the coordinator's `price/fresh` (which reads the feeds first): the signed
 * price, or why none.
 */
export async function priceAnswer(
  oracle: OwnPriceOracle | undefined,
  fresh: boolean,
): Promise<{ status: number; json: unknown }> {
  if (fresh) await oracle?.readFresh();
  const own = oracle?.current();
  if (own?.fresh) return { status: 200, json: own.price };
  const message = own ? `no fresh price: ${own.reason}` : 'no price feeds configured';
  return { status: 503, json: { error: { code: 'no-price', message } } };
}

/** `price/fresh`, a coordinator's signed message: the price after a fresh round, or why none. */
export async function freshPriceReply(oracle: OwnPriceOracle | undefined): Promise<unknown> {
  const answer = await priceAnswer(oracle, true);
  if (answer.status === 200) return answer.json;
  const message = (answer.json as { error: { message: string } }).error.message;
  throw new ProtocolError('no-price', message, 503);
}

/** A guardian's price in its health: its last signed price (or the one stored before this start). */
export function priceHealth(price: OwnPriceOracle | undefined, before: unknown) {
  const last = price?.last() ?? null;
  const own = price?.current();
  return {
    lastPrice: last ? { priceCents: last.priceCents, time: last.time } : before,
    priceFresh: own?.fresh ?? false,
    priceProblem: own ? (own.fresh ? null : own.reason) : 'no price feeds configured',
  };
}

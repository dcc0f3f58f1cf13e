// Real BTC/USD prices from public ticker services: the server's oracle (PRICE_SOURCE=feeds) and
// every guardian node read them with this one module. Each feed is read at its service's standard
// public path and parsed in that service's real JSON shape; a reading's price is the median of the
// answers that arrived in time, and is stale when fewer than two did or when they disagree by more
// than the configured spread.
import * as z from 'zod';
import { medianCents } from '@unit/protocol';

/** What a reading logs about a feed that did not answer (pino's Logger fits). */
export interface FeedLog {
  debug(obj: Record<string, unknown>, msg: string): void;
}

/** The public exchanges: what PRICE_FEEDS (the app's own oracle) may name. */
export const FEED_KINDS = ['mempool', 'kraken', 'coinbase', 'bitstamp'] as const;
/** A guardian may also read the devnet app's market, the devnet's only price (`devnet@<app>`). */
export const GUARDIAN_FEED_KINDS = [...FEED_KINDS, 'devnet'] as const;
export type FeedKind = (typeof GUARDIAN_FEED_KINDS)[number];

export interface PriceFeed {
  kind: FeedKind;
  /** The service's root, e.g. https://api.kraken.com; the kind's path is appended. */
  baseUrl: string;
}

/** A service's own timestamp older than this means its ticker has stopped. */
const SOURCE_MAX_AGE_SECONDS = 600;
/** A ticker answer is a few hundred bytes; anything much larger is not one. */
const MAX_ANSWER_BYTES = 64 * 1024;

/** BTC/USD with at most 9 integer digits; the decimals beyond cents round half up. */
const DECIMAL_USD = /^(\d{1,9})(?:\.(\d{1,20}))?$/;

/**
 * A decimal USD amount as integer cents, read digit by digit so no float rounding creeps in
 * ("97123.455" is 9712346 cents). Null for anything that is not a plain positive decimal.
 */
export function usdTextToCents(text: string): number | null {
  const match = DECIMAL_USD.exec(text);
  if (!match) return null;
  const fraction = (match[2] ?? '').padEnd(3, '0');
  let cents = BigInt(match[1]!) * 100n + BigInt(fraction.slice(0, 2));
  if (Number(fraction[2]) >= 5) cents += 1n;
  return cents > 0n ? Number(cents) : null;
}

/** A JSON number as JavaScript prints it (shortest round trip), then read as a decimal. */
const usdNumberToCents = (value: number): number | null =>
  Number.isFinite(value) ? usdTextToCents(String(value)) : null;

const unixSeconds = z.union([
  z.number().int(),
  z
    .string()
    .regex(/^\d{1,12}$/)
    .transform(Number),
]);

interface FeedShape {
  path: string;
  /** The price in cents and the service's own time (unix s) when it gives one. */
  read(json: unknown): { cents: number | null; time: number | null };
}

/** Each service's public ticker path and its real answer's shape. */
const SHAPES: Record<FeedKind, FeedShape> = {
  // {"time":1735000000,"USD":97123,"EUR":…}
  mempool: {
    path: '/api/v1/prices',
    read(json) {
      const answer = z.object({ USD: z.number().positive(), time: unixSeconds.optional() });
      const { USD, time } = answer.parse(json);
      return { cents: usdNumberToCents(USD), time: time ?? null };
    },
  },
  // {"error":[],"result":{"XXBTZUSD":{"c":["97123.40000","0.00100000"],…}}}
  kraken: {
    path: '/0/public/Ticker?pair=XBTUSD',
    read(json) {
      const answer = z.object({
        error: z.array(z.string()).max(0),
        result: z.object({ XXBTZUSD: z.object({ c: z.array(z.string()).min(1) }) }),
      });
      return { cents: usdTextToCents(answer.parse(json).result.XXBTZUSD.c[0]!), time: null };
    },
  },
  // {"data":{"amount":"97123.45","base":"BTC","currency":"USD"}}
  coinbase: {
    path: '/v2/prices/BTC-USD/spot',
    read(json) {
      const answer = z.object({
        data: z.object({ amount: z.string(), base: z.literal('BTC'), currency: z.literal('USD') }),
      });
      return { cents: usdTextToCents(answer.parse(json).data.amount), time: null };
    },
  },
  // The devnet's market (apps/server/src/devnet/market.ts): {"USD":95000,"time":…,"stale":false},
  // the shape of /api/bitcoin-price. Not the app's price series: in network mode that series is the
  // guardians' own median, which they must not read back. On the devnet it is the network's only
  // price, so one such feed is a price (minimumAnswers).
  devnet: {
    path: '/api/devnet/market',
    read(json) {
      const answer = z.object({
        USD: z.number().positive(),
        time: unixSeconds,
        stale: z.boolean(),
      });
      const { USD, time, stale } = answer.parse(json);
      if (stale) throw new Error('the app says its price is stale');
      return { cents: usdNumberToCents(USD), time };
    },
  },
  // {"timestamp":"1735000000","last":"97123","bid":…}
  bitstamp: {
    path: '/api/v2/ticker/btcusd/',
    read(json) {
      const answer = z.object({ last: z.string(), timestamp: unixSeconds.optional() });
      const { last, timestamp } = answer.parse(json);
      return { cents: usdTextToCents(last), time: timestamp ?? null };
    },
  },
};

export const feedUrl = (feed: PriceFeed): string =>
  `${feed.baseUrl.replace(/\/+$/, '')}${SHAPES[feed.kind].path}`;

export const feedName = (feed: PriceFeed): string => `${feed.kind}@${feed.baseUrl}`;

/**
 * PRICE_FEEDS (or a guardian's --feeds, named by `setting`): `kind@baseUrl` separated by commas.
 * Returns the feeds and one problem per bad entry.
 */
export function parsePriceFeeds(
  text: string,
  setting = 'PRICE_FEEDS',
  kinds: readonly FeedKind[] = FEED_KINDS,
): { feeds: PriceFeed[]; problems: string[] } {
  const feeds: PriceFeed[] = [];
  const problems: string[] = [];
  for (const entry of text.split(',').map((part) => part.trim())) {
    if (entry === '') continue;
    const at = entry.indexOf('@');
    const kind = at > 0 ? entry.slice(0, at) : '';
    const baseUrl = at > 0 ? entry.slice(at + 1) : '';
    if (!(kinds as readonly string[]).includes(kind)) {
      problems.push(
        `${setting} entry "${entry}" must be kind@baseUrl with kind one of ${kinds.join(', ')}`,
      );
      continue;
    }
    if (!z.url({ protocol: /^https?$/ }).safeParse(baseUrl).success) {
      problems.push(`${setting} entry "${entry}" must name an absolute http(s) URL after the @`);
      continue;
    }
    feeds.push({ kind: kind as FeedKind, baseUrl });
  }
  return { feeds, problems };
}

export type FeedAnswer = { feed: string } & (
  { priceCents: number; error?: undefined } | { priceCents?: undefined; error: string }
);

/** One round of reading every feed: fresh with a quote, or stale with why. */
export type PriceReading =
  | { fresh: true; priceCents: number; answers: FeedAnswer[] }
  | { fresh: false; reason: string; answers: FeedAnswer[] };

/** Reads one feed within the time-out; throws with a short reason on anything unexpected. */
export async function readFeed(feed: PriceFeed, timeoutMs: number, now: number): Promise<number> {
  const response = await fetch(feedUrl(feed), {
    headers: { accept: 'application/json' },
    signal: AbortSignal.timeout(timeoutMs),
  });
  if (!response.ok) {
    await response.body?.cancel();
    throw new Error(`HTTP ${response.status}`);
  }
  const text = await response.text();
  if (text.length > MAX_ANSWER_BYTES) throw new Error('answer too large');
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new Error('answer is not JSON');
  }
  let read: { cents: number | null; time: number | null };
  try {
    read = SHAPES[feed.kind].read(json);
  } catch {
    throw new Error(`answer does not have ${feed.kind}'s shape`);
  }
  const { cents, time } = read;
  if (cents === null) throw new Error('price is not a positive decimal');
  if (time !== null && now - time > SOURCE_MAX_AGE_SECONDS)
    throw new Error(`the service's price is ${now - time} s old`);
  return cents;
}

/**
 * The quote of a round: the median of the fresh answers (the mean of the middle two, rounded half
 * up, for an even count). Stale with fewer than two answers, or when the highest and lowest differ
 * by more than `maxSpreadBasisPoints` of the median.
 */
export function combineAnswers(
  cents: number[],
  maxSpreadBasisPoints: number,
  minimumAnswers = 2,
): { priceCents: number } | { stale: string } {
  if (cents.length < minimumAnswers)
    return { stale: `${cents.length} fresh price source${cents.length === 1 ? '' : 's'}` };
  const sorted = cents.map(BigInt).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const median = BigInt(medianCents(cents));
  const spread = sorted[sorted.length - 1]! - sorted[0]!;
  if (spread * 10_000n > BigInt(maxSpreadBasisPoints) * median)
    return {
      stale: `price sources disagree by more than ${maxSpreadBasisPoints / 100}% (${sorted[0]} to ${sorted[sorted.length - 1]} cents)`,
    };
  return { priceCents: Number(median) };
}

export interface FeedsPriceSourceOptions {
  feeds: PriceFeed[];
  maxSpreadBasisPoints: number;
  /** A feed that has not answered in this time is not fresh this round. */
  timeoutMs: number;
  log?: FeedLog;
  /** unix seconds */
  clock?: () => number;
}

/** PRICE_SOURCE=feeds: each round reads every feed at once. */
export class FeedsPriceSource {
  readonly name = 'feeds';
  readonly live = true;
  private readonly clock: () => number;

  constructor(private readonly options: FeedsPriceSourceOptions) {
    this.clock = options.clock ?? (() => Math.floor(Date.now() / 1000));
  }

  async read(): Promise<PriceReading> {
    const { feeds, timeoutMs, maxSpreadBasisPoints, log } = this.options;
    const now = this.clock();
    const settled = await Promise.allSettled(feeds.map((feed) => readFeed(feed, timeoutMs, now)));
    const answers: FeedAnswer[] = settled.map((result, i) => {
      const feed = feedName(feeds[i]!);
      if (result.status === 'fulfilled') return { feed, priceCents: result.value };
      const error = result.reason as
        { name?: string; message?: string; cause?: { code?: string } } | undefined;
      const reason =
        error?.name === 'TimeoutError' || error?.name === 'AbortError'
          ? `no answer within ${timeoutMs} ms`
          : (error?.cause?.code ?? error?.message ?? String(result.reason));
      log?.debug({ feed, reason }, 'price feed not fresh');
      return { feed, error: reason };
    });
    const fresh = answers.flatMap((a) => (a.priceCents === undefined ? [] : [a.priceCents]));
    // The devnet's one price source is its app: feeds of that kind alone need one answer.
    const minimum = feeds.every((f) => f.kind === 'devnet') ? 1 : 2;
    const combined = combineAnswers(fresh, maxSpreadBasisPoints, minimum);
    return 'stale' in combined
      ? { fresh: false, reason: combined.stale, answers }
      : { fresh: true, priceCents: combined.priceCents, answers };
  }
}

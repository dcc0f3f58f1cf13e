// The exchange feeds (read by the server's oracle and every guardian): each
// feed read at its service's path and parsed in its real shape, from local HTTP servers that answer
// like the services, hang, answer garbage or fail.
import { afterEach, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  combineAnswers,
  FeedsPriceSource,
  GUARDIAN_FEED_KINDS,
  parsePriceFeeds,
  readFeed,
  usdTextToCents,
  type FeedKind,
} from './feeds';
import { startFakeFeed, type FakeFeed, type FeedBehaviour } from '../../test/price-feeds';

const now = () => Math.floor(Date.now() / 1000);
const feeds: FakeFeed[] = [];
afterEach(async () => {
  await Promise.all(feeds.splice(0).map((feed) => feed.close()));
});

async function fake(kind: FeedKind, behaviour: FeedBehaviour): Promise<FakeFeed> {
  const feed = await startFakeFeed(kind, behaviour);
  feeds.push(feed);
  return feed;
}

const asFeed = (feed: FakeFeed) =>
  parsePriceFeeds(feed.entry, 'PRICE_FEEDS', GUARDIAN_FEED_KINDS).feeds[0]!;

describe('decimal USD to integer cents', () => {
  it('reads every dollars.cents text exactly', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 999_999_999 }),
        fc.integer({ min: 0, max: 99 }),
        (d, c) => {
          fc.pre(d > 0 || c > 0);
          expect(usdTextToCents(`${d}.${String(c).padStart(2, '0')}`)).toBe(d * 100 + c);
          expect(usdTextToCents(`${d}.${String(c).padStart(2, '0')}00000`)).toBe(d * 100 + c);
        },
      ),
    );
  });

  it('rounds half a cent up, without float drift', () => {
    // 1.005 * 100 is 100.49999999999999 in floats.
    expect(usdTextToCents('1.005')).toBe(101);
    expect(usdTextToCents('97123.455')).toBe(9_712_346);
    expect(usdTextToCents('97123.4549999')).toBe(9_712_345);
    expect(usdTextToCents('97123.40000')).toBe(9_712_340);
    expect(usdTextToCents('97123')).toBe(9_712_300);
  });

  it('refuses anything that is not a plain positive decimal', () => {
    for (const text of [
      '',
      '0',
      '0.001',
      '-5',
      '1e5',
      ' 97',
      '97,123.00',
      '97.',
      '.5',
      'NaN',
      '1234567890',
    ])
      expect(usdTextToCents(text), text).toBeNull();
  });
});

describe('the quote of a round', () => {
  it('is the median of the fresh answers', () => {
    expect(combineAnswers([9_800_000, 9_700_000, 9_700_050], 300)).toEqual({
      priceCents: 9_700_050,
    });
    expect(combineAnswers([9_700_000, 9_700_101], 300)).toEqual({ priceCents: 9_700_051 });
    expect(combineAnswers([9_700_300, 9_700_000, 9_700_200, 9_700_100], 300)).toEqual({
      priceCents: 9_700_150,
    });
  });

  it('is stale with fewer than two answers', () => {
    expect(combineAnswers([9_700_000], 300)).toEqual({ stale: '1 fresh price source' });
    expect(combineAnswers([], 300)).toEqual({ stale: '0 fresh price sources' });
  });

  it('is stale when the answers spread wider than the bound, and fine within 1%', () => {
    // 3% of 10,000,000 is 300,000 cents: exactly at the bound is fine, a cent more is not.
    expect(combineAnswers([9_850_000, 10_000_000, 10_150_000], 300)).toEqual({
      priceCents: 10_000_000,
    });
    expect('stale' in combineAnswers([9_850_000, 10_000_000, 10_150_001], 300)).toBe(true);
    fc.assert(
      fc.property(
        fc.integer({ min: 100_000, max: 100_000_000_000 }),
        fc.array(fc.integer({ min: 0, max: 99 }), { minLength: 1, maxLength: 5 }),
        (base, offsets) => {
          // Every answer within 1% of the lowest: never stale at the smallest allowed bound.
          const answers = [base, ...offsets.map((o) => base + Math.floor((base * o) / 10_000))];
          expect('priceCents' in combineAnswers(answers, 100)).toBe(true);
        },
      ),
    );
  });
});

describe('PRICE_FEEDS', () => {
  it('parses kind@baseUrl entries and names each bad one', () => {
    expect(
      parsePriceFeeds('mempool@https://mempool.space, kraken@https://api.kraken.com').feeds,
    ).toEqual([
      { kind: 'mempool', baseUrl: 'https://mempool.space' },
      { kind: 'kraken', baseUrl: 'https://api.kraken.com' },
    ]);
    const { problems } = parsePriceFeeds('binance@https://x.example,coinbase@ftp://x,bitstamp');
    expect(problems).toEqual([
      'PRICE_FEEDS entry "binance@https://x.example" must be kind@baseUrl with kind one of mempool, kraken, coinbase, bitstamp',
      'PRICE_FEEDS entry "coinbase@ftp://x" must name an absolute http(s) URL after the @',
      'PRICE_FEEDS entry "bitstamp" must be kind@baseUrl with kind one of mempool, kraken, coinbase, bitstamp',
    ]);
  });
});

describe('the devnet feed kind', () => {
  it("is a guardian's only: PRICE_FEEDS (the app's own oracle) cannot read itself", () => {
    const entry = 'devnet@http://127.0.0.1:8080';
    expect(parsePriceFeeds(entry).problems).toEqual([
      'PRICE_FEEDS entry "devnet@http://127.0.0.1:8080" must be kind@baseUrl with kind one of mempool, kraken, coinbase, bitstamp',
    ]);
    expect(parsePriceFeeds(entry, '--feeds', GUARDIAN_FEED_KINDS).feeds).toEqual([
      { kind: 'devnet', baseUrl: 'http://127.0.0.1:8080' },
    ]);
  });
});

describe('each service at its standard path, in its real shape', () => {
  const quoted: Record<FeedKind, [string, number]> = {
    mempool: ['97123', 9_712_300],
    kraken: ['97123.40000', 9_712_340],
    coinbase: ['97123.45', 9_712_345],
    bitstamp: ['97123', 9_712_300],
    devnet: ['97123.45', 9_712_345],
  };

  it.each(GUARDIAN_FEED_KINDS)('reads %s', async (kind) => {
    const [usd, cents] = quoted[kind];
    const feed = await fake(kind, { answer: 'price', usd });
    expect(await readFeed(asFeed(feed), 1_000, now())).toBe(cents);
    expect(feed.requests).toHaveLength(1);
  });

  it('refuses a 500, garbage, a hang past the time-out, and a service whose own time stopped', async () => {
    const failing = await fake('coinbase', { answer: 'http500' });
    await expect(readFeed(asFeed(failing), 1_000, now())).rejects.toThrow('HTTP 500');
    failing.behave({ answer: 'garbage' });
    await expect(readFeed(asFeed(failing), 1_000, now())).rejects.toThrow('not JSON');
    const hanging = await fake('kraken', { answer: 'hang' });
    const started = Date.now();
    await expect(readFeed(asFeed(hanging), 300, now())).rejects.toThrow();
    expect(Date.now() - started).toBeLessThan(2_000);
    const stopped = await fake('bitstamp', { answer: 'old', usd: '97000' });
    await expect(readFeed(asFeed(stopped), 1_000, now())).rejects.toThrow(/s old/);
  });

  it("refuses another service's shape and a price that is not a decimal", async () => {
    const mempool = await fake('mempool', { answer: 'price', usd: '97000' });
    // A kraken reader pointed at mempool's server asks kraken's path and gets a 404.
    await expect(
      readFeed({ kind: 'kraken', baseUrl: mempool.entry.split('@')[1]! }, 1_000, now()),
    ).rejects.toThrow('HTTP 404');
    const coinbase = await fake('coinbase', { answer: 'price', usd: '9.7e4' });
    await expect(readFeed(asFeed(coinbase), 1_000, now())).rejects.toThrow(
      'not a positive decimal',
    );
  });
});

describe('a round over several feeds', () => {
  async function source(behaviours: Array<[FeedKind, FeedBehaviour]>, timeoutMs = 400) {
    const started = await Promise.all(behaviours.map(([kind, b]) => fake(kind, b)));
    const parsed = parsePriceFeeds(
      started.map((f) => f.entry).join(','),
      '--feeds',
      GUARDIAN_FEED_KINDS,
    );
    return {
      feeds: started,
      source: new FeedsPriceSource({ feeds: parsed.feeds, maxSpreadBasisPoints: 300, timeoutMs }),
    };
  }

  it("one devnet feed (the app's own price) is a price; one exchange alone is not", async () => {
    const { source: devnet } = await source([['devnet', { answer: 'price', usd: '95000' }]]);
    expect(await devnet.read()).toMatchObject({ fresh: true, priceCents: 9_500_000 });
    const { source: kraken } = await source([['kraken', { answer: 'price', usd: '95000.00000' }]]);
    expect(await kraken.read()).toMatchObject({ fresh: false, reason: '1 fresh price source' });
  });

  it('quotes the median of four agreeing services', async () => {
    const { source: s } = await source([
      ['mempool', { answer: 'price', usd: '97000' }],
      ['kraken', { answer: 'price', usd: '97100.00000' }],
      ['coinbase', { answer: 'price', usd: '97050.50' }],
      ['bitstamp', { answer: 'price', usd: '97300' }],
    ]);
    const reading = await s.read();
    expect(reading).toMatchObject({ fresh: true, priceCents: 9_707_525 });
  });

  it('leaves out a service that hangs, once the time-out passes, and still quotes', async () => {
    const { source: s } = await source([
      ['mempool', { answer: 'price', usd: '97000' }],
      ['kraken', { answer: 'hang' }],
      ['coinbase', { answer: 'price', usd: '97100.00' }],
    ]);
    const started = Date.now();
    const reading = await s.read();
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(reading).toMatchObject({ fresh: true, priceCents: 9_705_000 });
    expect(reading.answers[1]).toEqual({
      feed: expect.stringMatching(/^kraken@/),
      error: 'no answer within 400 ms',
    });
  });

  it('is stale when garbage and a 500 leave one fresh source', async () => {
    const { source: s } = await source([
      ['mempool', { answer: 'garbage' }],
      ['kraken', { answer: 'http500' }],
      ['bitstamp', { answer: 'price', usd: '97000' }],
    ]);
    expect(await s.read()).toMatchObject({ fresh: false, reason: '1 fresh price source' });
  });

  it('is stale when the services disagree by more than the bound', async () => {
    const { source: s, feeds: started } = await source([
      ['coinbase', { answer: 'price', usd: '97000.00' }],
      ['bitstamp', { answer: 'price', usd: '120000' }],
    ]);
    expect(await s.read()).toMatchObject({
      fresh: false,
      reason: expect.stringContaining('disagree by more than 3%'),
    });
    started[1]!.behave({ answer: 'price', usd: '97500' });
    expect(await s.read()).toMatchObject({ fresh: true, priceCents: 9_725_000 });
  });
});

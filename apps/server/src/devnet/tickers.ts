// The exchanges of the devnet playing a network (`npm run devnet -- serve`): the four ticker services
// PRICE_FEEDS may name (mempool, kraken, coinbase, bitstamp), each at its real public path under
// /exchanges/<kind> and in its real JSON shape, so an instance with NETWORK=signet pointed at them
// (PRICE_FEEDS=mempool@<serve>/exchanges/mempool,...) reads a price offline. All four answer the
// network's one price, stamped now; `npm run devnet -- price <usd>` (POST /api/devnet/price) moves
// it, and the guardians' `devnet@<serve>` feed reads it at GET /api/devnet/market. It lives in the
// network's database (market.ts), so it survives a restart of the serve process.
import type { FastifyInstance } from 'fastify';
import * as z from 'zod';
import { FEED_KINDS, type FeedKind } from '@unit/guardian-net/price';
import type { DevnetMarket } from './market';

/** Each exchange's public ticker path (packages/guardian-net/src/price/feeds.ts reads the same). */
export const TICKER_PATHS: Record<(typeof FEED_KINDS)[number], string> = {
  mempool: '/api/v1/prices',
  kraken: '/0/public/Ticker',
  coinbase: '/v2/prices/BTC-USD/spot',
  bitstamp: '/api/v2/ticker/btcusd/',
};

/** Where the exchanges live on the serve process: PRICE_FEEDS's baseUrl is this plus the kind. */
export const EXCHANGES_PREFIX = '/exchanges';

const priceBody = z.object({ usd: z.number().positive().max(100_000_000) });

/** Integer cents as the exchanges write a price: "97123.45". */
const usdText = (cents: number) =>
  `${Math.floor(cents / 100)}.${String(cents % 100).padStart(2, '0')}`;

/** The exchange's real answer for `cents` at `time` (unix s), as its public API returns it. */
export function tickerAnswer(kind: FeedKind, cents: number, time: number): unknown {
  const usd = usdText(cents);
  switch (kind) {
    case 'mempool':
      return { time, USD: Number(usd) };
    case 'kraken':
      return { error: [], result: { XXBTZUSD: { c: [usd, '0.00100000'] } } };
    case 'coinbase':
      return { data: { amount: usd, base: 'BTC', currency: 'USD' } };
    case 'bitstamp':
      return { timestamp: String(time), last: usd };
    case 'devnet':
      return { USD: cents / 100, time, stale: false };
  }
}

/**
 * The ticker routes, the market route and the price control, on the serve process. The market
 * starts at `startCents` the first time.
 */
export async function registerTickerRoutes(
  app: FastifyInstance,
  market: DevnetMarket,
  startCents: number,
): Promise<void> {
  const now = () => Math.floor(Date.now() / 1000);
  if (!(await market.get())) await market.set({ priceCents: startCents, timestamp: now() });
  const cents = async () => (await market.get())?.priceCents ?? startCents;
  for (const kind of FEED_KINDS)
    app.get(`${EXCHANGES_PREFIX}/${kind}${TICKER_PATHS[kind]}`, async (_request, reply) =>
      reply.header('cache-control', 'no-store').send(tickerAnswer(kind, await cents(), now())),
    );
  app.get('/api/devnet/market', async () => tickerAnswer('devnet', await cents(), now()));
  app.post('/api/devnet/price', async (request, reply) => {
    const parsed = priceBody.safeParse(request.body);
    if (!parsed.success)
      return reply.code(400).send({
        error: 'The price must be {"usd": <a positive number of dollars>}; nothing was changed.',
        code: 'bad_request',
      });
    const point = await market.set({
      priceCents: Math.round(parsed.data.usd * 100),
      timestamp: now(),
    });
    return { USD: point.priceCents / 100, time: point.timestamp };
  });
}

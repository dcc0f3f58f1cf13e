// Local stand-ins for the public ticker services: a node:http server on 127.0.0.1 that answers
// the service's standard path in its real JSON shape, or hangs, or answers garbage or a 500.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { FeedKind } from '../src/price/feeds';

export type FeedBehaviour =
  | { answer: 'price'; usd: string }
  | { answer: 'hang' }
  | { answer: 'garbage' }
  | { answer: 'http500' }
  | { answer: 'old'; usd: string };

export interface FakeFeed {
  kind: FeedKind;
  /** kind@baseUrl, as PRICE_FEEDS lists it */
  entry: string;
  behave(next: FeedBehaviour): void;
  /** Paths asked for, in order. */
  readonly requests: string[];
  close(): Promise<void>;
}

const PATHS: Record<FeedKind, string> = {
  mempool: '/api/v1/prices',
  kraken: '/0/public/Ticker?pair=XBTUSD',
  coinbase: '/v2/prices/BTC-USD/spot',
  bitstamp: '/api/v2/ticker/btcusd/',
  devnet: '/api/devnet/market',
};

/** The service's real answer, as its public API returns it today. */
function answer(kind: FeedKind, usd: string, time: number): unknown {
  switch (kind) {
    case 'mempool':
      return {
        time,
        USD: Number(usd),
        EUR: 93_011,
        GBP: 77_850,
        CAD: 139_200,
        CHF: 87_100,
        AUD: 155_400,
        JPY: 15_200_000,
      };
    case 'kraken':
      return {
        error: [],
        result: {
          XXBTZUSD: {
            a: ['97124.00000', '1', '1.000'],
            b: ['97123.90000', '2', '2.000'],
            c: [usd, '0.00100000'],
            v: ['1000.12345678', '2000.87654321'],
            p: ['97000.12345', '96900.54321'],
            t: [12_345, 23_456],
            l: ['96000.00000', '95000.00000'],
            h: ['98000.00000', '99000.00000'],
            o: '96500.00000',
          },
        },
      };
    case 'coinbase':
      return { data: { amount: usd, base: 'BTC', currency: 'USD' } };
    case 'devnet':
      // apps/server/src/http/api.ts GET /api/devnet/market (the shape of /api/bitcoin-price)
      return { USD: Number(usd), time, stale: false };
    case 'bitstamp':
      return {
        timestamp: String(time),
        open: '96500',
        high: '98000',
        low: '96000',
        last: usd,
        volume: '1234.56789012',
        vwap: '97000',
        bid: '97122',
        ask: '97124',
        side: '0',
        open_24: '96400',
        percent_change_24: '0.75',
      };
  }
}

export async function startFakeFeed(kind: FeedKind, first: FeedBehaviour): Promise<FakeFeed> {
  let behaviour = first;
  const requests: string[] = [];
  const server = http.createServer((req, res) => {
    requests.push(req.url ?? '');
    if (req.url !== PATHS[kind]) {
      res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"not found"}');
      return;
    }
    const now = Math.floor(Date.now() / 1000);
    switch (behaviour.answer) {
      case 'hang':
        return; // never answers
      case 'garbage':
        res.writeHead(200, { 'content-type': 'application/json' }).end('<html>502 Bad Gateway');
        return;
      case 'http500':
        res.writeHead(500, { 'content-type': 'application/json' }).end('{"error":"internal"}');
        return;
      case 'old':
        res
          .writeHead(200, { 'content-type': 'application/json' })
          .end(JSON.stringify(answer(kind, behaviour.usd, now - 3_600)));
        return;
      case 'price':
        res
          .writeHead(200, { 'content-type': 'application/json' })
          .end(JSON.stringify(answer(kind, behaviour.usd, now)));
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    kind,
    entry: `${kind}@http://127.0.0.1:${port}`,
    behave: (next) => (behaviour = next),
    requests,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

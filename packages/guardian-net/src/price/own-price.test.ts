// A guardian's read on demand (the coordinator's price/fresh message): the answer comes from a
// round of its feeds begun after the request, not the last tick's, and a round already under way
// does not count; rounds started on demand are at least MIN_FRESH_READ_MS apart.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { startFakeFeed } from '../../test/price-feeds';
import { MIN_FRESH_READ_MS, OwnPriceOracle, priceAnswer } from './own-price';

describe('OwnPriceOracle.readFresh', () => {
  const closing: (() => Promise<void>)[] = [];
  afterAll(() => Promise.all(closing.map((close) => close())));

  /** A devnet-shaped feed on loopback answered by `answer`: its base URL, closed after the file. */
  async function serve(answer: http.RequestListener): Promise<string> {
    const server = http.createServer(answer);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    closing.push(() => new Promise((r) => server.close(() => r())));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }

  /** Guardian `guardian`'s oracle over that one feed, ticking too rarely to matter here. */
  function oracleOver(baseUrl: string, guardian: number, key: number): OwnPriceOracle {
    const oracle = new OwnPriceOracle({
      guardian,
      secretKey: new Uint8Array(32).fill(key),
      setVersion: () => 1,
      feeds: [{ kind: 'devnet', baseUrl }],
      tickMs: 3_600_000,
      log: () => undefined,
    });
    closing.push(() => oracle.stop());
    return oracle;
  }

  it('answers the price the feed has now, not the last tick; the plain route keeps the tick', async () => {
    // The devnet market's shape; each answer is the price when asked, sent 300 ms later.
    let usd = 95_000;
    let asked = 0;
    const baseUrl = await serve((_req, res) => {
      asked++;
      const body = JSON.stringify({ USD: usd, time: Math.floor(Date.now() / 1000), stale: false });
      setTimeout(() => res.writeHead(200, { 'content-type': 'application/json' }).end(body), 300);
    });
    const oracle = oracleOver(baseUrl, 1, 7);
    await oracle.readFresh();
    expect((await priceAnswer(oracle, false)).json).toMatchObject({ priceCents: 9_500_000 });

    usd = 80_000;
    expect((await priceAnswer(oracle, false)).json).toMatchObject({ priceCents: 9_500_000 });
    // A round (a tick) has asked the feed at $80,000 and is still waiting for its answer when the
    // market moves: the fresh read does not take that round, and waits for one of its own.
    const tick = oracle.read();
    await expect.poll(() => asked, { interval: 5 }).toBe(2);
    usd = 81_000;
    const fresh = await priceAnswer(oracle, true);
    await tick;
    expect(fresh).toMatchObject({ status: 200, json: { guardian: 1, priceCents: 8_100_000 } });
    expect(asked).toBe(3);
  }, 20_000);

  it('starts at most one round on demand per MIN_FRESH_READ_MS, however often it is asked', async () => {
    let asked = 0;
    const baseUrl = await serve((_req, res) => {
      asked++;
      const body = JSON.stringify({
        USD: 95_000,
        time: Math.floor(Date.now() / 1000),
        stale: false,
      });
      res.writeHead(200, { 'content-type': 'application/json' }).end(body);
    });
    const oracle = oracleOver(baseUrl, 3, 5);
    const first = Date.now();
    // Fifty asks at once: one round, and one more for those asked after it began (the same
    // millisecond shares it).
    await Promise.all(Array.from({ length: 50 }, () => oracle.readFresh()));
    expect(asked).toBeLessThanOrEqual(2);
    // The next ask reads once more, and every round on demand waited for the spacing.
    const before = asked;
    await oracle.readFresh();
    expect(asked).toBe(before + 1);
    expect(Date.now() - first).toBeGreaterThanOrEqual((asked - 1) * MIN_FRESH_READ_MS);
  }, 20_000);

  it('answers 503 no-price when the fresh round finds no price', async () => {
    const feed = await startFakeFeed('devnet', { answer: 'price', usd: '95000' });
    closing.push(() => feed.close());
    const oracle = oracleOver(feed.entry.slice('devnet@'.length), 2, 9);
    await oracle.readFresh();
    feed.behave({ answer: 'http500' });
    const answer = await priceAnswer(oracle, true);
    expect(answer.status).toBe(503);
    expect(answer.json).toMatchObject({ error: { code: 'no-price' } });
  }, 20_000);
});

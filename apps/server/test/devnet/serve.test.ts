// `npm run devnet -- serve`: the devnet playing a network answers a network's services and its
// faucet and mine controls, nothing of the product, and premines its UNIT to the address given.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { UnitOutputDto } from '@unit/protocol';
import { FEED_KINDS, FeedsPriceSource, readFeed, type PriceFeed } from '@unit/guardian-net/price';
import { serveNetwork, type ServedNetwork } from '../../src/devnet/serve';
import { runCli } from '../../src/devnet/cli';
import { EXCHANGES_PREFIX } from '../../src/devnet/tickers';
import { TREASURY } from './fixtures';

let served: ServedNetwork;
let dataDir: string;

beforeAll(async () => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'unit-serve-'));
  served = await serveNetwork({
    dataDir,
    host: '127.0.0.1',
    port: 0,
    blockIntervalMs: 0,
    unitTo: TREASURY.trAddress,
    startPriceCents: 88_000_00,
  });
});

afterAll(async () => {
  await served.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

describe('the devnet serving a network', () => {
  it("answers the chain's services, readable from another origin, and premines UNIT to the address", async () => {
    const tip = await fetch(`${served.url}/esplora/blocks/tip/height`);
    expect(tip.headers.get('access-control-allow-origin')).toBe('*');
    const height = Number(await tip.text());
    const fees = await fetch(`${served.url}/mempool/signet/api/v1/fees/recommended`);
    expect(fees.status).toBe(200);
    const units = (await (
      await fetch(`${served.url}/runes/address/${TREASURY.trAddress}/outputs`)
    ).json()) as UnitOutputDto[];
    expect(units.reduce((sum, o) => sum + o.unit_amount, 0)).toBeGreaterThan(0);
    const rune = await fetch(`${served.url}/ord/rune/1:1`, {
      headers: { accept: 'application/json' },
    });
    expect(((await rune.json()) as { id: string }).id).toBe(served.devnet.unitRuneId);
    // Its controls: a block on demand.
    const mined = await fetch(`${served.url}/api/devnet/mine`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ blocks: 1 }),
    });
    expect(((await mined.json()) as { height: number }).height).toBe(height + 1);
  });

  it('serves nothing of the product', async () => {
    for (const route of ['/api/config', '/api/bitcoin-price', '/guardian', '/'])
      expect((await fetch(`${served.url}${route}`)).status, route).toBe(404);
  });
});

describe("the devnet's exchanges", () => {
  /** PRICE_FEEDS as the README tells a rehearsal to set it: each kind under /exchanges/<kind>. */
  const feeds = (): PriceFeed[] =>
    FEED_KINDS.map((kind) => ({ kind, baseUrl: `${served.url}${EXCHANGES_PREFIX}/${kind}` }));

  it("serves the four tickers at their real paths, read by the app's own feed parsers", async () => {
    const now = Math.floor(Date.now() / 1000);
    for (const feed of feeds()) expect(await readFeed(feed, 5_000, now), feed.kind).toBe(88_000_00);
    const source = new FeedsPriceSource({
      feeds: feeds(),
      maxSpreadBasisPoints: 300,
      timeoutMs: 5_000,
    });
    const reading = await source.read();
    expect(reading.fresh).toBe(true);
    expect(reading.fresh && reading.priceCents).toBe(88_000_00);
  });

  it("moves with `npm run devnet -- price` against the serve process, the guardians' market too", async () => {
    expect(JSON.parse(await runCli(['price', '61234.56'], served.url))).toMatchObject({
      USD: 61234.56,
    });
    const now = Math.floor(Date.now() / 1000);
    for (const feed of feeds()) expect(await readFeed(feed, 5_000, now), feed.kind).toBe(61_234_56);
    const market = await readFeed({ kind: 'devnet', baseUrl: served.url }, 5_000, now);
    expect(market).toBe(61_234_56);
    const bad = await fetch(`${served.url}/api/devnet/price`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ usd: -1 }),
    });
    expect(bad.status).toBe(400);
  });
});

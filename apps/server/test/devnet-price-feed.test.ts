// The devnet's control that stops off mode's simulated price feed (POST /api/devnet/price-feed):
// the price goes stale at once, as a silent live feed's does, the page is told why, quotes are
// refused with that cause, and started again the feed ticks a fresh price at once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PRICE_PAUSE_COPY, type ApiErrorDto, type BitcoinPriceDto } from '@unit/protocol';
import { bitcoinPriceSchema } from '@unit/protocol/wire';
import { getJson, postJson, startTestApp, type RunningApp } from './support';
import { openEvents } from './cluster/instances';

let server: RunningApp;

beforeAll(async () => {
  server = await startTestApp({});
});
afterAll(async () => {
  await server.stop();
});

const price = async (): Promise<BitcoinPriceDto> =>
  bitcoinPriceSchema.parse((await getJson(`${server.url}/api/bitcoin-price`)).body);
const quote = () =>
  getJson(`${server.url}/api/oracle/quote?th=0&ts=${Math.floor(Date.now() / 1000)}`);

describe('POST /api/devnet/price-feed', () => {
  it('stops the simulated feed: stale at once with its cause, nothing recorded, quotes refused', async () => {
    expect(await price()).toMatchObject({ stale: false, stale_reason: null });
    const before = await price();
    const open = await openEvents(server);
    const stopped = await postJson(`${server.url}/api/devnet/price-feed`, { running: false });
    expect(stopped.status).toBe(200);
    expect(stopped.body).toEqual({ running: false, stale: true, stale_reason: 'no_fresh_price' });
    // an open page hears it at once, with the cause; a page that opens now hears it first
    const pushed = await open.next((e) => e.type === 'price' && e.data.stale === true);
    expect(pushed.data).toEqual({
      USD: before.USD,
      time: before.time,
      stale: true,
      stale_reason: 'no_fresh_price',
    });
    const late = await openEvents(server);
    expect((await late.next((e) => e.type === 'price')).data).toEqual(pushed.data);
    open.close();
    late.close();
    expect(await server.oracle.tick()).toBeNull();
    expect(await price()).toEqual({ ...before, stale: true, stale_reason: 'no_fresh_price' });
    const refused = await quote();
    expect(refused.status).toBe(503);
    expect(refused.body).toEqual({
      code: 'no_price',
      error: PRICE_PAUSE_COPY.refusal.no_fresh_price,
    } satisfies ApiErrorDto);
    // a price set by hand is refused too while the feed is stopped
    const set = await postJson(`${server.url}/api/devnet/price`, { usd: 50_000 });
    expect(set.status).toBe(503);
  });

  it('started again, ticks a fresh price at once and quotes again', async () => {
    const started = await postJson(`${server.url}/api/devnet/price-feed`, { running: true });
    expect(started.body).toEqual({ running: true, stale: false, stale_reason: null });
    expect(await price()).toMatchObject({ stale: false, stale_reason: null });
    expect((await quote()).status).toBe(200);
  });

  it('refuses a body without a boolean running', async () => {
    const bad = await postJson(`${server.url}/api/devnet/price-feed`, { running: 'no' });
    expect(bad.status).toBe(400);
    expect((bad.body as ApiErrorDto).code).toBe('bad_request');
  });
});

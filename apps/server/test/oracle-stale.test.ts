// The real server with PRICE_SOURCE=feeds against local ticker services: it
// quotes their median, says when the price is stale, and then neither signs a quote nor lets the
// guardian co-sign one, until the services agree again.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  PRICE_PAUSE_COPY,
  type ApiErrorDto,
  type BitcoinPriceDto,
  type OracleQuoteDto,
} from '@unit/protocol';
import { getJson, startTestApp, type RunningApp } from './support';
import { callOnce, codeOf } from './guardian-client';
import { startFakeFeed, type FakeFeed } from './price-feeds';

let server: RunningApp;
let mempool: FakeFeed;
let kraken: FakeFeed;
let coinbase: FakeFeed;

beforeAll(async () => {
  mempool = await startFakeFeed('mempool', { answer: 'price', usd: '97000' });
  kraken = await startFakeFeed('kraken', { answer: 'price', usd: '97100.00000' });
  coinbase = await startFakeFeed('coinbase', { answer: 'price', usd: '97050.00' });
  server = await startTestApp({
    PRICE_SOURCE: 'feeds',
    PRICE_FEEDS: [mempool, kraken, coinbase].map((feed) => feed.entry).join(','),
    // A round each second; a feed that has not answered in 0.9 s is not fresh.
    PRICE_TICK: '1000',
  });
});
afterAll(async () => {
  await server.stop();
  await Promise.all([mempool, kraken, coinbase].map((feed) => feed.close()));
});

/** A whole round that started after the feeds last changed. */
async function freshRound(): Promise<void> {
  await server.oracle.tick();
  await server.oracle.tick();
}

const price = async () =>
  (await getJson(`${server.url}/api/bitcoin-price`)).body as BitcoinPriceDto;
const quote = () =>
  getJson(`${server.url}/api/oracle/quote?th=1&ts=${Math.floor(Date.now() / 1000)}`);

/** A vault.deposit whose envelope is well formed and whose quote is `signed`; the rest is junk. */
async function depositCode(signed: OracleQuoteDto): Promise<string> {
  const code = await codeOf(
    callOnce(server.url, 'vault.deposit', {
      payload: { deposit_amount: 10_000, tx_feerate: 2 },
      vault_pubkey: randomBytes(32).toString('hex'),
      psbt: 'cHNidP8BAA==',
      nonce: randomBytes(16).toString('hex'),
      expires_at: Math.floor(Date.now() / 1000) + 120,
      quote: signed,
    }),
  );
  return code === 'ok' ? 'accepted' : code;
}

describe('a guardian quoting real feeds', () => {
  let signedWhileFresh: OracleQuoteDto;

  it('quotes the median of the services at their standard paths', async () => {
    await freshRound();
    expect(await price()).toMatchObject({ USD: 97_050, stale: false });
    expect(mempool.requests[0]).toBe('/api/v1/prices');
    expect(kraken.requests[0]).toBe('/0/public/Ticker?pair=XBTUSD');
    expect(coinbase.requests[0]).toBe('/v2/prices/BTC-USD/spot');
    const res = await quote();
    expect(res.status).toBe(200);
    signedWhileFresh = res.body as OracleQuoteDto;
    expect(signedWhileFresh.price_cents).toBe(9_705_000);
    // The envelope passes the price check; the junk transaction is what is refused.
    expect(await depositCode(signedWhileFresh)).toBe('bad_transaction');
  });

  it('goes stale when the services disagree: no quote, no co-signing, the last price kept', async () => {
    kraken.behave({ answer: 'price', usd: '120000.00000' });
    const ticks: number[] = [];
    const onTick = (point: { priceCents: number }) => ticks.push(point.priceCents);
    server.oracle.on('tick', onTick);
    await freshRound();
    server.oracle.off('tick', onTick);
    // No point recorded, so the liquidation sweep never runs on a price no two sources agree on.
    expect(ticks).toEqual([]);
    const stale = await price();
    // the page is told why, so its paused banner names the price feeds before any click
    expect(stale).toMatchObject({ USD: 97_050, stale: true, stale_reason: 'no_fresh_price' });
    const refused = await quote();
    expect(refused.status).toBe(503);
    expect((refused.body as ApiErrorDto).code).toBe('no_price');
    expect((refused.body as ApiErrorDto).error).toBe(PRICE_PAUSE_COPY.refusal.no_fresh_price);
    // A quote signed while the price was fresh is refused too.
    expect(await depositCode(signedWhileFresh)).toBe('no_price');
  });

  it('stays stale while only one service answers: one hangs, one answers garbage', async () => {
    kraken.behave({ answer: 'hang' });
    coinbase.behave({ answer: 'garbage' });
    const started = Date.now();
    await freshRound();
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(await price()).toMatchObject({ stale: true });
    expect((await quote()).status).toBe(503);
    expect(await depositCode(signedWhileFresh)).toBe('no_price');
  });

  it('is fresh again, and co-signs again, once two services agree', async () => {
    kraken.behave({ answer: 'http500' });
    coinbase.behave({ answer: 'price', usd: '97200.00' });
    await freshRound();
    expect(await price()).toMatchObject({ USD: 97_100, stale: false, stale_reason: null });
    const res = await quote();
    expect(res.status).toBe(200);
    expect(await depositCode(res.body as OracleQuoteDto)).toBe('bad_transaction');
  });
});

import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { ripemd160 } from '@noble/hashes/legacy.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, hexToBytes } from '@noble/hashes/utils.js';
import { aggregateBuckets, backfillTimestamps, TIME_PERIODS } from '../src/oracle/intervals';
import { SimulatedPriceSource } from '../src/oracle/price-source';
import { verifyQuote } from '../src/oracle/keys';
import { Oracle } from '../src/oracle/oracle';
import { migrateToLatest, openStore, countPricePoints } from '../src/store';
import { testOracleParts } from './oracle-fixture';

const NOW = 1_767_225_600; // 2026-01-01T00:00:00Z

async function startedOracle(clock: () => number = () => NOW) {
  const store = await openStore({ file: ':memory:' });
  await migrateToLatest(store.db);
  const oracle = new Oracle({
    ...(await testOracleParts(store.db)),
    startPriceCents: 9_500_000,
    clock,
  });
  await oracle.start();
  return { oracle, store };
}

describe('price history intervals', () => {
  it('answers exactly the SPEC §9 bucket counts for every period', async () => {
    const { oracle, store } = await startedOracle();
    for (const [period, expected] of [
      ['24h', 288],
      ['7d', 168],
      ['30d', 120],
      ['1y', 365],
    ] as const) {
      const { data, error } = await oracle.history(period);
      expect(data).toHaveLength(expected);
      expect(error).toBeNull();
      const steps = data.slice(1).map((p, i) => p.timestamp - data[i]!.timestamp);
      expect(new Set(steps)).toEqual(new Set([TIME_PERIODS[period].seconds]));
    }
    await store.close();
  });

  it('back-fills a year that ends at the start price, keeping raw points of the last day only', async () => {
    const { oracle, store } = await startedOracle();
    expect(oracle.price()).toEqual({ timestamp: NOW, priceCents: 9_500_000 });
    // stop() waits for the thinning that start() began: raw points older than a day are gone,
    // the year lives on as bucket closes.
    await oracle.stop();
    const count = await countPricePoints(store.db);
    expect(count).toBeGreaterThan(280);
    expect(count).toBeLessThanOrEqual(290);
    const year = await oracle.history('1y');
    expect(year.data.every((p) => p.price > 0)).toBe(true);
    expect(year.data[year.data.length - 1]!.price).toBe(95_000);
    await store.close();
  });

  it('fills every bucket of every period from the back-fill alone', () => {
    const stamps = backfillTimestamps(NOW);
    for (const period of ['24h', '7d', '30d', '1y'] as const) {
      const { buckets, seconds } = TIME_PERIODS[period];
      const to = Math.floor(NOW / seconds) * seconds + seconds;
      const from = to - buckets * seconds;
      const hit = new Set(
        stamps.filter((t) => t >= from && t < to).map((t) => Math.floor((t - from) / seconds)),
      );
      // The bucket holding `now` is filled by the anchor point itself.
      hit.add(buckets - 1);
      expect(hit.size, period).toBe(buckets);
    }
  });

  it('carries the previous price into empty buckets and the current price when none is known', () => {
    const data = aggregateBuckets('24h', NOW, [], null, 4_200_000);
    expect(data.every((p) => p.price === 42_000)).toBe(true);
    const withBefore = aggregateBuckets('24h', NOW, [], { timestamp: 1, priceCents: 100 }, 5);
    expect(withBefore.every((p) => p.price === 1)).toBe(true);
  });
});

describe('simulated price source', () => {
  it('is reproducible from its seed and never goes below a dollar', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 2 ** 31 - 1 }), (seed) => {
        const a = new SimulatedPriceSource(seed);
        const b = new SimulatedPriceSource(seed);
        const anchor = { timestamp: NOW, priceCents: 9_500_000 };
        const stamps = [NOW - 3 * 86_400, NOW - 2 * 86_400, NOW - 86_400];
        const ha = a.history(anchor, stamps);
        expect(ha).toEqual(b.history(anchor, stamps));
        expect(ha.every((p) => Number.isInteger(p.priceCents) && p.priceCents >= 100)).toBe(true);
      }),
      { numRuns: 50 },
    );
  });
});

describe('oracle quotes', () => {
  it('signs a quote the guardian can verify, and a tampered price fails', async () => {
    const { oracle, store } = await startedOracle();
    const quote = oracle.quote(6_000_000, NOW);
    expect(verifyQuote(quote.oracle_pubkey, quote)).toBe(true);
    expect(oracle.verifyQuote(quote)).toBe(true);
    expect(verifyQuote(quote.oracle_pubkey, { ...quote, price_cents: 1 })).toBe(false);
    await store.close();
  });

  it('reveals the threshold secret exactly when the price is at or below the threshold', async () => {
    const { oracle, store } = await startedOracle();
    const above = oracle.quote(9_499_999, NOW);
    expect(above.secret).toBeNull();
    const at = oracle.quote(9_500_000, NOW);
    expect(at.secret).not.toBeNull();
    // threshold_hash = hash160(secret), and the hash does not depend on the reveal.
    expect(bytesToHex(ripemd160(sha256(hexToBytes(at.secret!))))).toBe(at.threshold_hash);
    expect(oracle.quote(9_500_000, NOW - 1).threshold_hash).not.toBe(at.threshold_hash);
    expect(oracle.quote(0, NOW).secret).toBeNull();
    await store.close();
  });

  it('marks a quote stamped more than 300 s ago as expired', async () => {
    const { oracle, store } = await startedOracle();
    expect(oracle.quote(1, NOW - 300).is_expired).toBe(false);
    expect(oracle.quote(1, NOW - 301).is_expired).toBe(true);
    await store.close();
  });

  it('emits tick with each new point, including a devnet price set', async () => {
    let now = NOW;
    const { oracle, store } = await startedOracle(() => now);
    const seen: number[] = [];
    oracle.on('tick', (p) => seen.push(p.priceCents));
    now += 30;
    const ticked = await oracle.tick();
    await oracle.setPrice(5_000_000);
    expect(seen).toEqual([ticked!.priceCents, 5_000_000]);
    expect(oracle.price().priceCents).toBe(5_000_000);
    await store.close();
  });
});

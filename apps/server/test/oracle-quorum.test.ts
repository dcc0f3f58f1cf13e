// The oracle in network mode (oracle/quorum.ts): a quote states the guardians' price quorum (its
// median and oldest stamp, the signed prices beside the oracle's signature), not the oracle's own
// price; no quorum is a stale price (no quote); a round that finds none leaves the last quorum to
// age out by the 60 s rule its prices are held to. The guardians' answers are the edge: a stand-in
// source gives what `collectPriceQuorum` would.
import { describe, expect, it } from 'vitest';
import pino from 'pino';
import type { PriceQuote, SignedPrice } from '@unit/guardian-net/price';
import { verifyQuote } from '../src/oracle/keys';
import { Oracle, StalePriceError } from '../src/oracle/oracle';
import { PriceQuorumFeed } from '../src/oracle/quorum';
import { migrateToLatest, openStore, type PricePoint } from '../src/store';
import { devnetMigrations } from '../src/devnet/migrations';
import { DevnetMarket } from '../src/devnet/market';
import { testOracleParts } from './oracle-fixture';

const NOW = 1_767_225_600;
const price = (guardian: number, priceCents: number, time: number): SignedPrice => ({
  guardian,
  setVersion: 1,
  priceCents,
  time,
  sig: String(guardian).repeat(128),
});

async function networkOracle(answers: (() => PriceQuote)[], { devnet = false } = {}) {
  let now = NOW;
  const clock = () => now;
  let rounds = 0;
  const freshAsks: boolean[] = [];
  const source = {
    t: 2,
    collect: (fresh?: boolean) => {
      freshAsks.push(fresh ?? false);
      return Promise.resolve(answers[Math.min(rounds++, answers.length - 1)]!());
    },
  };
  const quorum = new PriceQuorumFeed(source, clock, pino({ level: 'silent' }));
  const store = await openStore({ file: ':memory:' });
  await migrateToLatest(store.db, devnetMigrations);
  const market = devnet ? new DevnetMarket(store.db) : null;
  const oracle = new Oracle({
    ...(await testOracleParts(store.db)),
    startPriceCents: 9_000_000,
    clock,
    quorum,
    market,
  });
  await oracle.load();
  return {
    oracle,
    store,
    market,
    freshAsks,
    rounds: () => rounds,
    advance: (seconds: number) => (now += seconds),
  };
}

const valid = (prices: SignedPrice[], priceCents: number): PriceQuote => ({
  valid: true,
  priceCents,
  time: Math.min(...prices.map((p) => p.time)),
  prices,
  commitment: 'ab'.repeat(32),
  answers: [],
  left: [],
});
const none: PriceQuote = {
  valid: false,
  reason: '1 guardian price agree, 2 needed',
  answers: [],
  left: [{ guardian: 2, reason: 'no fresh price' }],
};

describe('the oracle in network mode quotes the guardians’ price quorum', () => {
  it("states the quorum's median and oldest stamp with its prices, not the oracle's own price", async () => {
    const prices = [price(1, 9_500_000, NOW - 20), price(2, 9_510_000, NOW - 3)];
    const { oracle, store } = await networkOracle([() => valid(prices, 9_505_000)]);
    // Before any round: stale, and the quote route's call asks the guardians first.
    expect(() => oracle.quote(0, NOW)).toThrow(StalePriceError);
    const quote = await oracle.quoteFresh(9_600_000, NOW);
    expect(quote).toMatchObject({ price_cents: 9_505_000, time: NOW - 20, quorum: prices });
    expect(verifyQuote(quote.oracle_pubkey, quote)).toBe(true);
    // The reveal follows the quoted price: at or under the threshold, whatever the own series says.
    expect(oracle.price().priceCents).toBe(9_000_000);
    expect(quote.secret).not.toBeNull();
    expect((await oracle.quoteFresh(9_504_999, NOW)).secret).toBeNull();
    await store.close();
  });

  it('a quote asks the guardians only when there is no current quorum, one round at a time', async () => {
    const prices = [price(1, 9_500_000, NOW), price(2, 9_500_000, NOW)];
    const { oracle, store, rounds, advance } = await networkOracle([
      () => valid(prices, 9_500_000),
    ]);
    await Promise.all([oracle.quoteFresh(0, NOW), oracle.quoteFresh(0, NOW)]);
    advance(30);
    await oracle.quoteFresh(0, NOW); // still current: the 5 s timer renews it, not the quote
    expect(rounds()).toBe(1);
    advance(31); // its oldest price is 61 s old: the quote asks again
    await expect(oracle.quoteFresh(0, NOW)).rejects.toBeInstanceOf(StalePriceError);
    expect(rounds()).toBe(2);
    await store.close();
  });

  it('no quorum is a stale price; a failed round leaves the last quorum until its oldest price is 60 s old', async () => {
    const first = [price(1, 9_500_000, NOW - 10), price(2, 9_500_000, NOW)];
    const { oracle, store, advance } = await networkOracle([
      () => valid(first, 9_500_000),
      () => none,
    ]);
    await oracle.refreshQuorum();
    advance(30);
    await oracle.refreshQuorum(); // finds none: the last quorum's prices are still fresh
    expect(oracle.quote(0, NOW).price_cents).toBe(9_500_000);
    advance(21); // the oldest price is 61 s old
    const stale = (() => {
      try {
        oracle.quote(0, NOW);
      } catch (e) {
        return e as StalePriceError;
      }
    })();
    expect(stale).toBeInstanceOf(StalePriceError);
    // The user reads the usual stale-price message; the log and the operator read why.
    expect(stale!.reason).toBe(
      "the guardians' price quorum is 61 s old (no quorum of guardian prices (1 guardian price agree, 2 needed))",
    );
    await expect(oracle.quoteFresh(0, NOW)).rejects.toBeInstanceOf(StalePriceError);
    await store.close();
  });

  it('guardians of the last quorum that answer they have no fresh price withdraw it: stale at once under t', async () => {
    const first = [price(1, 9_500_000, NOW), price(2, 9_500_000, NOW)];
    const unreachable: PriceQuote = {
      ...none,
      answers: [{ guardian: 2, error: 'unreachable (ECONNREFUSED)' }],
    };
    const withdrawn: PriceQuote = {
      ...none,
      answers: [{ guardian: 2, error: 'no fresh price: 0 fresh price sources', noPrice: true }],
    };
    const { oracle, store, advance } = await networkOracle([
      () => valid(first, 9_500_000),
      () => unreachable,
      () => withdrawn,
    ]);
    await oracle.refreshQuorum();
    advance(5);
    await oracle.refreshQuorum(); // guardian 2 unreachable: its signed price still counts
    expect(oracle.quote(0, NOW).price_cents).toBe(9_500_000);
    advance(5);
    await oracle.refreshQuorum(); // guardian 2 says it has no fresh price: one of two left
    expect(() => oracle.quote(0, NOW)).toThrow(StalePriceError);
    await store.close();
  });

  it('a source that throws is a round without a quorum, never an unhandled error', async () => {
    const { oracle, store } = await networkOracle([
      () => {
        throw new Error('set unreadable');
      },
    ]);
    await expect(oracle.quoteFresh(0, NOW)).rejects.toThrow(StalePriceError);
    await store.close();
  });

  it("is the app's recorded price series: the tick's leader records the quorum; no quorum is stale, nothing recorded", async () => {
    const two = (cents: number, time: number) => [price(1, cents, time), price(2, cents, time)];
    const withdrawn: PriceQuote = {
      ...none,
      answers: [{ guardian: 2, error: 'no fresh price: 0 fresh price sources', noPrice: true }],
    };
    const { oracle, store, advance } = await networkOracle([
      () => valid(two(9_500_000, NOW - 4), 9_500_000),
      () => valid(two(9_500_000, NOW - 4), 9_500_000),
      () => valid(two(9_500_000, NOW + 4), 9_500_000),
      () => valid(two(9_400_000, NOW + 9), 9_400_000),
      () => withdrawn,
    ]);
    const ticks: PricePoint[] = [];
    oracle.on('tick', (p) => ticks.push(p));
    // Started, before any quorum: stale at the first start's anchor (the devnet's start price).
    expect(oracle.stale).toBe(true);
    expect(oracle.price()).toEqual({ priceCents: 9_000_000, timestamp: NOW });
    // An instance that does not lead the tick collects (for its quotes) but records nothing.
    await oracle.refreshQuorum();
    expect(ticks).toEqual([]);
    expect(oracle.stale).toBe(true);
    // The leader records the quorum's median, stamped never before the last point.
    oracle.startTicking();
    await oracle.refreshQuorum();
    expect(ticks).toEqual([{ priceCents: 9_500_000, timestamp: NOW + 1 }]);
    expect(oracle.stale).toBe(false);
    expect((await oracle.history('24h')).data.at(-1)!.price).toBe(95_000);
    advance(5); // the same price, a newer stamp: not recorded again within 15 s
    await oracle.refreshQuorum();
    advance(5); // a new price: recorded with the quorum's stamp
    await oracle.refreshQuorum();
    expect(ticks.at(-1)).toEqual({ priceCents: 9_400_000, timestamp: NOW + 9 });
    expect(ticks).toHaveLength(2);
    // No quorum: stale at once, nothing recorded, and the point already held does not undo it.
    advance(5);
    await oracle.refreshQuorum();
    expect(oracle.stale).toBe(true);
    oracle.observe(ticks.at(-1)!);
    expect(oracle.stale).toBe(true);
    expect(ticks).toHaveLength(2);
    expect(oracle.price().priceCents).toBe(9_400_000);
    await oracle.stop();
    await store.close();
  });

  it("the devnet's price sets the market the guardians read and asks them for fresh prices at once", async () => {
    const prices = [price(1, 8_000_000, NOW), price(2, 8_000_000, NOW)];
    const { oracle, store, market, freshAsks, advance } = await networkOracle(
      [() => valid(prices, 8_000_000)],
      { devnet: true },
    );
    // The market starts at the series' last price; a tick moves the market, never the series.
    expect(await oracle.marketPrice()).toEqual({ priceCents: 9_000_000, timestamp: NOW });
    advance(30);
    expect(await oracle.tick()).toBeNull();
    expect((await market!.get())!.timestamp).toBe(NOW + 30);
    expect(oracle.price()).toEqual({ priceCents: 9_000_000, timestamp: NOW });
    oracle.startTicking();
    await oracle.refreshQuorum();
    freshAsks.length = 0;
    expect(await oracle.setPrice(8_000_000)).toEqual({
      priceCents: 8_000_000,
      timestamp: NOW + 30,
    });
    expect(await oracle.marketPrice()).toEqual({ priceCents: 8_000_000, timestamp: NOW + 30 });
    expect(freshAsks).toEqual([true]);
    expect(oracle.price().priceCents).toBe(8_000_000);
    await oracle.stop();
    await store.close();
  });
});

describe("the quorum's log while the guardians start", () => {
  /** A feed whose rounds find no quorum, its log lines collected as [level, message]. */
  function silentNetwork(graceMs: number) {
    const said: [string, string][] = [];
    const log = pino(
      { level: 'info' },
      {
        write: (line: string) => {
          const { level, msg } = JSON.parse(line) as { level: number; msg: string };
          said.push([pino.levels.labels[level]!, msg]);
        },
      },
    );
    const nobody: PriceQuote = {
      valid: false,
      reason: '0 guardian prices agree, 2 needed',
      answers: [1, 2, 3].map((guardian) => ({ guardian, error: 'connect ECONNREFUSED' })),
      left: [1, 2, 3].map((guardian) => ({ guardian, reason: 'connect ECONNREFUSED' })),
    };
    const source = { t: 2, n: 3, version: 1, collect: () => Promise.resolve(nobody) };
    return { feed: new PriceQuorumFeed(source, () => NOW, log, graceMs), said };
  }

  it('says once, as info, that it waits for the guardians while they start', async () => {
    const { feed, said } = silentNetwork(60_000);
    for (let i = 0; i < 3; i++) await feed.refresh();
    expect(said).toEqual([
      ['info', 'waiting for the guardians to start and sign their first prices'],
    ]);
    expect(await feed.guardiansOnline()).toMatchObject({ online: 0, n: 3, t: 2, version: 1 });
  });

  it('warns once, past the grace, that there is no quorum', async () => {
    const { feed, said } = silentNetwork(0);
    for (let i = 0; i < 3; i++) await feed.refresh();
    expect(said).toEqual([['warn', 'no price quorum this round']]);
  });
});

// The simulated source's start: a gap after downtime is filled at 5-minute steps up to now, a gap
// too long for 10,000 such points at wider steps, and nothing is made up when there is no gap.
import { describe, expect, it } from 'vitest';
import pino from 'pino';
import { countPricePoints, migrateToLatest, openStore } from '../store';
import { insertPricePoints, latestPricePoint } from '../store/prices';
import { SimulatedPriceSource } from './price-source';
import { fillSimulatedHistory } from './simulated-history';

const NOW = 1_767_225_600;
const log = pino({ level: 'silent' });

async function storeWith(timestamp: number) {
  const store = await openStore({ file: ':memory:' });
  await migrateToLatest(store.db);
  const latest = { timestamp, priceCents: 9_500_000 };
  await insertPricePoints(store.db, [latest]);
  return { store, latest };
}

describe('fillSimulatedHistory', () => {
  it('fills an hour of downtime with 5-minute points ending at now', async () => {
    const { store, latest } = await storeWith(NOW - 3_600);
    const source = new SimulatedPriceSource(7);
    const current = await fillSimulatedHistory({
      db: store.db,
      source,
      latest,
      now: NOW,
      startPriceCents: 1,
      log,
    });
    expect(current.timestamp).toBe(NOW);
    expect(await countPricePoints(store.db)).toBe(13);
    expect(await latestPricePoint(store.db)).toEqual(current);
    await store.close();
  });

  it('spreads a gap too long for 10,000 points over wider steps', async () => {
    const { store, latest } = await storeWith(NOW - 300 * 20_000);
    const source = new SimulatedPriceSource(7);
    await fillSimulatedHistory({ db: store.db, source, latest, now: NOW, startPriceCents: 1, log });
    expect(await countPricePoints(store.db)).toBe(10_001);
    await store.close();
  });

  it('makes up nothing when the last point is now', async () => {
    const { store, latest } = await storeWith(NOW);
    const source = new SimulatedPriceSource(7);
    const current = await fillSimulatedHistory({
      db: store.db,
      source,
      latest,
      now: NOW,
      startPriceCents: 1,
      log,
    });
    expect(current).toEqual(latest);
    expect(await countPricePoints(store.db)).toBe(1);
    await store.close();
  });
});

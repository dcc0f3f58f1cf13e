// The quorum series' spacing: an unchanged price keeps the series fresh with the guardians' default
// 30 s price tick and the quorum's 5 s rounds (network-series.ts).
import { GUARDIAN_PRICE_MAX_AGE_SECONDS } from '@unit/protocol';
import { describe, expect, it } from 'vitest';
import { QUORUM_TICK_MS } from './quorum';
import { quorumPoint, quorumSeriesStale, RECORD_UNCHANGED_EVERY_SECONDS } from './network-series';

const PRICE = 9_500_000;

describe('the quorum series', () => {
  it('records an unchanged price often enough that its last point never reads stale', () => {
    // Three guardians read every 30 s, each at its own offset; the quorum of all three fresh prices
    // is collected every 5 s (at any phase) and stamped with the oldest of them. Every offset and
    // phase, checked one second before each next round.
    const tick = 30; // a guardian's default --price-tick (guardian-net's own-price.ts)
    const round = QUORUM_TICK_MS / 1000;
    const lastRead = (now: number, offset: number) => now - ((now - offset) % tick);
    let oldest = 0;
    for (let phase = 0; phase < round; phase++)
      for (let b = 0; b < tick; b++)
        for (let c = 0; c < tick; c++) {
          let last = { priceCents: PRICE, timestamp: 0 };
          for (let now = tick + phase; now < 20 * tick; now += round) {
            const time = Math.min(lastRead(now, 0), lastRead(now, b), lastRead(now, c));
            last = quorumPoint(last, { priceCents: PRICE, time }, false) ?? last;
            oldest = Math.max(oldest, now + round - 1 - last.timestamp);
          }
        }
    expect(oldest).toBeLessThanOrEqual(GUARDIAN_PRICE_MAX_AGE_SECONDS);
    expect(quorumSeriesStale({ priceCents: PRICE, timestamp: 0 }, oldest)).toBeNull();
  });

  it('records a moved price at once, and an unchanged one only after the spacing', () => {
    const last = { priceCents: PRICE, timestamp: 1_000 };
    const at = (time: number, priceCents = PRICE) => quorumPoint(last, { priceCents, time }, false);
    expect(at(1_001, PRICE + 1)).toEqual({ priceCents: PRICE + 1, timestamp: 1_001 });
    expect(at(1_000 + RECORD_UNCHANGED_EVERY_SECONDS - 1)).toBeNull();
    expect(at(1_000 + RECORD_UNCHANGED_EVERY_SECONDS)).toEqual({
      priceCents: PRICE,
      timestamp: 1_000 + RECORD_UNCHANGED_EVERY_SECONDS,
    });
    // Never back in time, and a stale spell records the first quorum after it.
    expect(quorumPoint(last, { priceCents: PRICE, time: 990 }, true)).toEqual({
      priceCents: PRICE,
      timestamp: 1_001,
    });
  });
});

import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { recommendedFees } from './fees';

describe('recommendedFees', () => {
  it('answers the tier floors 1, 2 and 3 sat/vB when the mempool is empty', () => {
    expect(recommendedFees([])).toEqual({
      fastestFee: 3,
      halfHourFee: 2,
      hourFee: 1,
      economyFee: 1,
      minimumFee: 1,
    });
  });

  it('ranks by waiting vbytes: fast outbids three quarters, economy is the cheapest waiting rate', () => {
    const fees = recommendedFees([
      { fee: 100, vsize: 100 }, // 1 sat/vB
      { fee: 500, vsize: 100 }, // 5
      { fee: 1_000, vsize: 100 }, // 10
      { fee: 2_000, vsize: 100 }, // 20
    ]);
    expect(fees).toEqual({
      fastestFee: 10,
      halfHourFee: 5,
      hourFee: 1,
      economyFee: 1,
      minimumFee: 1,
    });
  });

  it('keeps Slow, Medium and Fast apart when everything waiting pays the same rate', () => {
    const fees = recommendedFees([
      { fee: 700, vsize: 100 },
      { fee: 700, vsize: 100 },
    ]);
    expect([fees.hourFee, fees.halfHourFee, fees.fastestFee]).toEqual([7, 8, 9]);
  });

  it('always answers integers of at least 1, Fast above Medium above Slow', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            fee: fc.integer({ min: 0, max: 10_000_000 }),
            vsize: fc.integer({ min: 1, max: 100_000 }),
          }),
        ),
        (waiting) => {
          const f = recommendedFees(waiting);
          const order = [f.fastestFee, f.halfHourFee, f.hourFee, f.economyFee, f.minimumFee];
          for (const rate of order) expect(Number.isInteger(rate) && rate >= 1).toBe(true);
          for (let i = 1; i < order.length; i++)
            expect(order[i - 1]!).toBeGreaterThanOrEqual(order[i]!);
          expect(f.fastestFee).toBeGreaterThan(f.halfHourFee);
          expect(f.halfHourFee).toBeGreaterThan(f.hourFee);
        },
      ),
    );
  });
});

import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { recommendedFees } from './fees';

describe('recommendedFees', () => {
  it('answers the relay floor for every estimate when the mempool is empty', () => {
    expect(recommendedFees([])).toEqual({
      fastestFee: 1,
      halfHourFee: 1,
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

  it('always answers integers of at least 1 in non-increasing order from fastest to minimum', () => {
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
        },
      ),
    );
  });
});

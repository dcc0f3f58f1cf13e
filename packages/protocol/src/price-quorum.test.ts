import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  GUARDIAN_PRICE_MAX_AGE_SECONDS,
  medianCents,
  PRICE_MAX_SPREAD_BASIS_POINTS,
  priceQuorum,
  priceQuorumProblem,
  withinSpread,
} from './price-quorum';

const now = 1_800_000_000;
const at = (guardian: number, priceCents: number, age = 0) => ({
  guardian,
  priceCents,
  time: now - age,
});

describe('the price quorum rule', () => {
  it('uses the constants of today’s oracle: 60 s (two 30 s ticks) and 3%', () => {
    expect(GUARDIAN_PRICE_MAX_AGE_SECONDS).toBe(60);
    expect(PRICE_MAX_SPREAD_BASIS_POINTS).toBe(300);
  });

  it('takes the median, the mean of the middle two rounded half up for an even count', () => {
    expect(medianCents([9_500_000, 9_400_000, 9_600_000])).toBe(9_500_000);
    expect(medianCents([9_500_001, 9_500_000])).toBe(9_500_001);
    expect(medianCents([9_500_000, 9_500_003, 1, 99_000_000])).toBe(9_500_002);
    expect(() => medianCents([])).toThrow();
  });

  it('puts the 3% bound inclusive: 97,000.00 and 103,000.00 USD are within 3% of 100,000.00', () => {
    expect(withinSpread(9_700_000, 10_000_000, 300)).toBe(true);
    expect(withinSpread(10_300_000, 10_000_000, 300)).toBe(true);
    expect(withinSpread(9_699_999, 10_000_000, 300)).toBe(false);
    expect(withinSpread(10_300_001, 10_000_000, 300)).toBe(false);
  });

  it('quotes the median of 2-of-3 fresh prices and leaves out a guardian 10% off', () => {
    const q = priceQuorum([at(1, 9_500_000), at(2, 9_510_000, 30), at(3, 8_550_000)], {
      t: 2,
      now,
    });
    expect(q.valid).toBe(true);
    if (!q.valid) return;
    expect(q.priceCents).toBe(9_505_000);
    expect(q.time).toBe(now - 30);
    expect(q.used.map((p) => p.guardian)).toEqual([1, 2]);
    expect(q.left).toEqual([
      { guardian: 3, reason: '8550000 cents is more than 3% from the median 9500000' },
    ]);
    expect(priceQuorumProblem(q.used, q.priceCents, { t: 2, now })).toBeNull();
  });

  it('quotes all three when they agree within 3% of their median', () => {
    const q = priceQuorum([at(3, 9_700_000), at(1, 10_000_000), at(2, 10_300_000)], { t: 2, now });
    expect(q.valid && q.priceCents).toBe(10_000_000);
    expect(q.valid && q.used.map((p) => p.guardian)).toEqual([1, 2, 3]);
  });

  it('is stale at 61 s and fresh at 60 s; a stamp more than 30 s ahead does not count', () => {
    const fresh = priceQuorum([at(1, 9_500_000, 60), at(2, 9_500_000, 60)], { t: 2, now });
    expect(fresh.valid).toBe(true);
    const stale = priceQuorum([at(1, 9_500_000, 61), at(2, 9_500_000), at(3, 9_500_000, -31)], {
      t: 2,
      now,
    });
    expect(stale).toMatchObject({
      valid: false,
      reason: '1 guardian price agree, 2 needed',
      left: [
        { guardian: 1, reason: 'price is 61 s old' },
        { guardian: 3, reason: 'price is stamped 31 s in the future' },
      ],
    });
  });

  it('needs t prices: two guardians that disagree by 10% make no quote', () => {
    const q = priceQuorum([at(1, 9_500_000), at(2, 10_450_000)], { t: 2, now });
    expect(q.valid).toBe(false);
    expect(q.left.map((l) => l.guardian)).toEqual([1, 2]);
  });

  it('counts a guardian once, however many prices it sends', () => {
    const q = priceQuorum([at(1, 9_500_000), at(1, 9_500_100)], { t: 2, now });
    expect(q).toMatchObject({ valid: false, left: [{ guardian: 1 }] });
    expect(priceQuorumProblem([at(1, 9_500_000), at(1, 9_500_000)], 9_500_000, { t: 2, now })).toBe(
      'a guardian is counted twice',
    );
  });

  it('refuses evidence with a stale price, a price outside the spread, or a quote not its median', () => {
    const rule = { t: 2, now };
    expect(priceQuorumProblem([at(1, 9_500_000)], 9_500_000, rule)).toBe(
      '1 guardian prices, 2 needed',
    );
    expect(priceQuorumProblem([at(1, 9_500_000, 61), at(2, 9_500_000)], 9_500_000, rule)).toBe(
      'guardian 1: price is 61 s old',
    );
    expect(priceQuorumProblem([at(1, 9_500_000), at(2, 10_450_000)], 9_975_000, rule)).toMatch(
      /^guardian 1: 9500000 cents is more than 3% from the median 9975000$/,
    );
    expect(priceQuorumProblem([at(1, 9_500_000), at(2, 9_500_002)], 9_500_000, rule)).toBe(
      'the quote is not the median 9500001',
    );
    expect(priceQuorumProblem([at(1, 0), at(2, 9_500_000)], 9_500_000, rule)).toBe(
      'guardian 1: price is not a positive number of cents',
    );
  });

  it('obeys a configured spread: at 1% a 2% outlier is left out', () => {
    const q = priceQuorum([at(1, 10_000_000), at(2, 10_000_000), at(3, 10_200_000)], {
      t: 2,
      now,
      maxSpreadBasisPoints: 100,
    });
    expect(q.valid && q.used.map((p) => p.guardian)).toEqual([1, 2]);
  });

  it('leaves out, again, prices the remaining median no longer holds within the spread', () => {
    // Median 103.50: 100.00 and 107.00 are 3.4% off; one price is left, short of t = 2.
    const q = priceQuorum([at(1, 10_000), at(2, 10_350), at(3, 10_700)], { t: 2, now });
    expect(q).toMatchObject({ valid: false, left: [{ guardian: 1 }, { guardian: 3 }] });
  });

  it('every quote it makes passes the strict check of its own evidence', () => {
    const price = fc.record({
      guardian: fc.integer({ min: 1, max: 7 }),
      // mostly near one price, so that many draws make a quorum; some anywhere
      priceCents: fc.oneof(
        { weight: 4, arbitrary: fc.integer({ min: 9_200_000, max: 9_800_000 }) },
        { weight: 1, arbitrary: fc.integer({ min: 1, max: 20_000_000 }) },
      ),
      time: fc.integer({ min: now - 90, max: now + 40 }),
    });
    fc.assert(
      fc.property(fc.array(price, { maxLength: 7 }), fc.integer({ min: 1, max: 5 }), (ps, t) => {
        const q = priceQuorum(ps, { t, now });
        if (!q.valid) return q.left.length > 0 || ps.length < t;
        expect(priceQuorumProblem(q.used, q.priceCents, { t, now })).toBeNull();
        expect(q.used.length + q.left.length).toBe(ps.length);
      }),
    );
  });
});

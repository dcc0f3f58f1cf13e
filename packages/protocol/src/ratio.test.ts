import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  collateralRatio,
  formatHealth,
  healthBand,
  healthStatus,
  isLiquidated,
  liquidationPriceUsd,
  liquidationThresholdCents,
  ratioAtLeast,
  shouldSetLiquidatedMarker,
} from './ratio';

const ONE_BTC = 100_000_000;
// 100,000 UNIT of debt against 1 BTC: the ratio in percent is the price in thousands of USD.
const DEBT_100K_UNIT = 10_000_000;

describe('collateralRatio', () => {
  it.each([
    [134_000, 134],
    [135_000, 135],
    [136_000, 136],
    [160_000, 160],
    [161_000, 161],
    [195_000, 195],
    [196_000, 196],
    [134_500, 135],
    [134_499.99, 134],
  ])('1 BTC against 100,000 UNIT at $%s is %s%%', (price, expected) => {
    expect(collateralRatio(ONE_BTC, DEBT_100K_UNIT, price)).toBe(expected);
  });
  it('is 160 when the price is unknown', () => {
    for (const price of [null, undefined, Number.NaN, 0, -5]) {
      expect(collateralRatio(ONE_BTC, DEBT_100K_UNIT, price)).toBe(160);
    }
  });
  it('is Infinity with no debt', () => {
    expect(collateralRatio(ONE_BTC, 0, 95_000)).toBe(Infinity);
    expect(collateralRatio(ONE_BTC, 0, null)).toBe(Infinity);
  });
  it('is 190% for 1 BTC backing 50,000 UNIT at 95,000 USD', () => {
    expect(collateralRatio(ONE_BTC, 5_000_000, 95_000)).toBe(190);
  });
  it('matches the protocol docs example: $10,000 of BTC backs 6,250 UNIT at 160%', () => {
    expect(collateralRatio(10_000_000, 625_000, 100_000)).toBe(160);
  });
  it('never falls as the price rises', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 2_100_000_000_000 }),
        fc.integer({ min: 1, max: 1_000_000_000_000 }),
        fc.integer({ min: 1, max: 100_000_000 }),
        fc.integer({ min: 0, max: 100_000_000 }),
        (btc, debt, p1, dp) => {
          expect(collateralRatio(btc, debt, (p1 + dp) / 100)).toBeGreaterThanOrEqual(
            collateralRatio(btc, debt, p1 / 100),
          );
        },
      ),
    );
  });
  it('ratioAtLeast decides 160% exactly, without rounding', () => {
    // 159.5% rounds to 160 but is under 160%
    expect(collateralRatio(ONE_BTC, DEBT_100K_UNIT, 159_500)).toBe(160);
    expect(ratioAtLeast(ONE_BTC, DEBT_100K_UNIT, 159_500, 160)).toBe(false);
    expect(ratioAtLeast(ONE_BTC, DEBT_100K_UNIT, 160_000, 160)).toBe(true);
    expect(ratioAtLeast(ONE_BTC, 0, null, 160)).toBe(true);
    expect(ratioAtLeast(ONE_BTC, DEBT_100K_UNIT, null, 160)).toBe(false);
  });
});

describe('healthBand', () => {
  it.each([
    [134, null],
    [135, 'risky'],
    [136, 'risky'],
    [160, 'risky'],
    [161, 'moderate'],
    [195, 'moderate'],
    [196, 'healthy'],
    [500, 'healthy'],
    [Infinity, null],
    [Number.NaN, null],
  ])('%s%% is %s', (ratio, band) => {
    expect(healthBand(ratio)).toBe(band);
  });
  it('gives band text and colour for table status', () => {
    expect(healthStatus(150)).toEqual({ band: 'risky', text: 'Risky', colour: 'red' });
    expect(healthStatus(170)).toEqual({ band: 'moderate', text: 'Moderate', colour: 'yellow' });
    expect(healthStatus(250)).toEqual({ band: 'healthy', text: 'Healthy', colour: 'green' });
    expect(healthStatus(Infinity).text).toBe('N/A');
    expect(healthStatus(120)).toEqual({ band: null, text: 'Liquidation', colour: 'red' });
  });
});

describe('formatHealth', () => {
  it.each([
    [1, 'N/A'],
    [Infinity, 'N/A'],
    [172, '172%'],
    [499, '499%'],
    [500, '500+%'],
    [1234, '500+%'],
  ])('%s shows %s', (ratio, text) => {
    expect(formatHealth(ratio)).toBe(text);
  });
});

describe('liquidation price', () => {
  it('is debt x 1.35 / BTC, floored to the cent', () => {
    expect(liquidationThresholdCents(ONE_BTC, DEBT_100K_UNIT)).toBe(13_500_000);
    expect(liquidationPriceUsd(ONE_BTC, DEBT_100K_UNIT)).toBe(135_000);
    // 0.01 UNIT x 1.35 / 0.00000007 BTC = $192,857.1428… -> $192,857.14
    expect(liquidationThresholdCents(7, 1)).toBe(19_285_714);
    expect(liquidationPriceUsd(7, 1)).toBe(192_857.14);
  });
  it('puts 50,000 UNIT on 1 BTC at $67,500.00 and 300 UNIT on 0.01 BTC at $40,500.00', () => {
    expect(liquidationThresholdCents(ONE_BTC, 5_000_000)).toBe(6_750_000);
    expect(liquidationThresholdCents(1_000_000, 30_000)).toBe(4_050_000);
  });
  it('is null (and th_cents 0) with no debt', () => {
    expect(liquidationPriceUsd(ONE_BTC, 0)).toBeNull();
    expect(liquidationThresholdCents(ONE_BTC, 0)).toBe(0);
  });
  it('refuses debt without collateral for th_cents', () => {
    expect(() => liquidationThresholdCents(0, 100)).toThrow(RangeError);
    expect(liquidationPriceUsd(0, 100)).toBeNull();
  });
  it('puts the vault at or under 135% once the price reaches it', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1_000, max: 2_100_000_000_000 }),
        fc.integer({ min: 1, max: 1_000_000_000_000 }),
        (btc, debt) => {
          const th = liquidationThresholdCents(btc, debt);
          fc.pre(th > 0);
          expect(collateralRatio(btc, debt, th / 100)).toBeLessThanOrEqual(135);
        },
      ),
    );
  });
});

describe('liquidated state', () => {
  const base = { inLiquidatedList: false, ratio: 170, markerSetAt: null, nowSeconds: 1_000_000 };
  it('is true in the liquidated list', () => {
    expect(isLiquidated({ ...base, inLiquidatedList: true })).toBe(true);
  });
  it('is true at 135 and below, false at 136', () => {
    expect(isLiquidated({ ...base, ratio: 135 })).toBe(true);
    expect(isLiquidated({ ...base, ratio: 134 })).toBe(true);
    expect(isLiquidated({ ...base, ratio: 136 })).toBe(false);
  });
  it('honours a marker for 21600 s and not after', () => {
    expect(isLiquidated({ ...base, markerSetAt: 1_000_000 - 21_599 })).toBe(true);
    expect(isLiquidated({ ...base, markerSetAt: 1_000_000 - 21_600 })).toBe(false);
  });
  it('is false with no debt', () => {
    expect(isLiquidated({ ...base, ratio: Infinity })).toBe(false);
  });
  it('sets the marker only at 135 or below and when not yet in the list', () => {
    expect(shouldSetLiquidatedMarker({ inLiquidatedList: false, ratio: 135 })).toBe(true);
    expect(shouldSetLiquidatedMarker({ inLiquidatedList: false, ratio: 136 })).toBe(false);
    expect(shouldSetLiquidatedMarker({ inLiquidatedList: true, ratio: 120 })).toBe(false);
  });
});

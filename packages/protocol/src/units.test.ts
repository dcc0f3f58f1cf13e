import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  btcStringToSats,
  centsToUnitString,
  formatUsd,
  formatUsdCents,
  formatUsdCompact,
  priceToCents,
  sats,
  satsToBtcString,
  satsValueUsdCents,
  toWireNumber,
  unitCents,
  unitStringToCents,
  usdCentsToSats,
  usdStringToCents,
} from './units';

describe('sats and unitCents constructors', () => {
  it('accept integers as number, bigint or string', () => {
    expect(sats(5)).toBe(5n);
    expect(sats(5n)).toBe(5n);
    expect(unitCents('12345')).toBe(12345n);
  });
  it('refuse fractions and unsafe numbers', () => {
    expect(() => sats(1.5)).toThrow(RangeError);
    expect(() => unitCents('1.5')).toThrow(RangeError);
    expect(() => sats(2 ** 60)).toThrow(RangeError);
  });
  it('toWireNumber refuses values past 2^53', () => {
    expect(toWireNumber(42n)).toBe(42);
    expect(() => toWireNumber(2n ** 60n)).toThrow(RangeError);
  });
});

describe('satsToBtcString', () => {
  it.each([
    [0n, '0'],
    [1n, '0.00000001'],
    [5_000n, '0.00005'],
    [150_000_000n, '1.5'],
    [100_000_000n, '1'],
    [2_100_000_000_000_000n, '21000000'],
    [-12_345n, '-0.00012345'],
  ])('%s sats is %s BTC', (input, expected) => {
    expect(satsToBtcString(sats(input))).toBe(expected);
  });
  it('pads to a minimum number of decimals on request', () => {
    expect(satsToBtcString(100_000_000, { minDecimals: 2 })).toBe('1.00');
    expect(satsToBtcString(123_456_789, { minDecimals: 2 })).toBe('1.23456789');
  });
});

describe('btcStringToSats', () => {
  it.each([
    ['0.00005', 5_000n],
    ['1', 100_000_000n],
    ['.5', 50_000_000n],
    ['1.', 100_000_000n],
    ['0.00000001', 1n],
    ['12.34567891', 1_234_567_891n],
  ])('%s BTC is %s sats', (input, expected) => {
    expect(btcStringToSats(input)).toBe(expected);
  });
  it('refuses 9 decimals, text and empty strings', () => {
    expect(btcStringToSats('0.000000001')).toBeNull();
    expect(btcStringToSats('abc')).toBeNull();
    expect(btcStringToSats('')).toBeNull();
    expect(btcStringToSats('.')).toBeNull();
  });
  it('round-trips any amount of sats through its string', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 2_100_000_000_000_000n }), (n) => {
        expect(btcStringToSats(satsToBtcString(sats(n)))).toBe(n);
      }),
    );
  });
});

describe('UNIT strings', () => {
  it.each([
    [0n, '0.00'],
    [5n, '0.05'],
    [123_450n, '1,234.50'],
    [100_000_000_00n, '100,000,000.00'],
  ])('%s hundredths is %s', (input, expected) => {
    expect(centsToUnitString(unitCents(input))).toBe(expected);
  });
  it('parses thousands separators and refuses a third decimal', () => {
    expect(unitStringToCents('1,234.5')).toBe(123_450n);
    expect(unitStringToCents('7')).toBe(700n);
    expect(unitStringToCents('1.234')).toBeNull();
  });
  it('round-trips any amount of hundredths', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 10n ** 15n }), (n) => {
        expect(unitStringToCents(centsToUnitString(unitCents(n)))).toBe(n);
      }),
    );
  });
});

describe('USD', () => {
  it('formats prices with cents and compact values', () => {
    expect(formatUsd(95_000)).toBe('$95,000.00');
    expect(formatUsd(0.5)).toBe('$0.50');
    expect(formatUsdCents(123_456n)).toBe('$1,234.56');
    expect(formatUsdCompact(95_000)).toBe('$95K');
    expect(formatUsdCompact(1_250_000)).toBe('$1.25M');
  });
  it('turns a price into integer cents, or null when it is unknown', () => {
    expect(priceToCents(95_000.125)).toBe(9_500_013n);
    expect(priceToCents(null)).toBeNull();
    expect(priceToCents(Number.NaN)).toBeNull();
    expect(priceToCents(0)).toBeNull();
    expect(priceToCents(-1)).toBeNull();
  });
  it('values sats at a price in floored cents', () => {
    expect(satsValueUsdCents(50_000_000, 100_000)).toBe(5_000_000n);
    expect(satsValueUsdCents(1, 100_000)).toBe(0n);
    expect(satsValueUsdCents(1, undefined)).toBeNull();
  });
});

describe('USD entry of a BTC amount (SPEC §5)', () => {
  it('parses up to 2 decimals with thousands separators and refuses a third', () => {
    expect(usdStringToCents('950')).toBe(95_000n);
    expect(usdStringToCents('1,234.5')).toBe(123_450n);
    expect(usdStringToCents('0.01')).toBe(1n);
    expect(usdStringToCents('1.001')).toBeNull();
    expect(usdStringToCents('')).toBeNull();
  });
  it('buys 0.01 BTC with $950.00 at 95,000 USD, floored to the sat', () => {
    expect(usdCentsToSats(95_000n, 95_000)).toBe(1_000_000n);
    // $1.00 at 95,000 USD is 1052.63 sats
    expect(usdCentsToSats(100n, 95_000)).toBe(1_052n);
    expect(usdCentsToSats(100n, null)).toBeNull();
    expect(usdCentsToSats(100n, 0)).toBeNull();
  });
  it('never gives more sats than the USD value it was typed from', () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: 0n, max: 10n ** 12n }),
        fc.integer({ min: 1, max: 10_000_000 }),
        (cents, price) => {
          const s = usdCentsToSats(cents, price)!;
          expect(satsValueUsdCents(s, price)!).toBeLessThanOrEqual(cents);
        },
      ),
    );
  });
});

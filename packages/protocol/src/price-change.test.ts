import { describe, expect, it } from 'vitest';
import {
  formatPriceChange,
  nextPriceChangePeriod,
  periodPriceChange,
  PRICE_CHANGE_PERIODS,
  priceChangePercent,
} from './price-change';

describe('nextPriceChangePeriod', () => {
  it('cycles 24h, 7d, 30d, 1y and back to 24h (SPEC §9)', () => {
    expect(PRICE_CHANGE_PERIODS).toEqual(['24h', '7d', '30d', '1y']);
    const seen = ['24h'];
    for (let i = 0; i < 4; i++) seen.push(nextPriceChangePeriod(seen.at(-1) as '24h'));
    expect(seen).toEqual(['24h', '7d', '30d', '1y', '24h']);
  });
});

describe('formatPriceChange', () => {
  it('signs the percent with two decimals and says which way it went', () => {
    expect(formatPriceChange(2.314)).toEqual({ text: '+2.31%', direction: 'up' });
    expect(formatPriceChange(-1.049)).toEqual({ text: '\u22121.05%', direction: 'down' });
    expect(formatPriceChange(1234.5)).toEqual({ text: '+1,234.50%', direction: 'up' });
  });
  it('calls a change that rounds to zero flat, and refuses what is not a number', () => {
    expect(formatPriceChange(0.004)).toEqual({ text: '0.00%', direction: 'flat' });
    expect(formatPriceChange(-0.004)).toEqual({ text: '0.00%', direction: 'flat' });
    expect(formatPriceChange(Number.NaN)).toBeNull();
    expect(formatPriceChange(Infinity)).toBeNull();
  });
});

describe('priceChangePercent and periodPriceChange', () => {
  it('reads a 20% fall from a series and the price now, whatever the series ends at', () => {
    const series = [{ price: 95_000 }, { price: 94_000 }, { price: 92_843.5 }];
    expect(periodPriceChange(series, 76_000)).toBe(-20);
    expect(formatPriceChange(periodPriceChange(series, 76_000)!)?.text).toBe('\u221220.00%');
    expect(periodPriceChange(series, 60_000)).toBe(-36.84);
    expect(priceChangePercent(75_000, 90_000)).toBe(20);
  });
  it('has no figure without a series or a price, and no percent of a zero start', () => {
    expect(periodPriceChange([], 95_000)).toBeNull();
    expect(periodPriceChange([{ price: 95_000 }], null)).toBeNull();
    expect(priceChangePercent(0, 95_000)).toBe(0);
  });
});

import { describe, expect, it } from 'vitest';
import { sats, unitCents } from '@unit/protocol';
import { chartSeries } from './series';

const NOW = 1_800_000_000;
const price = (timestamp: number, usd: number) => ({ timestamp, price: usd });
const point = (timestamp: number, btc: number, unit: number) => ({
  timestamp,
  btc_locked: btc,
  unit_borrowed: unit,
  vaults: 1,
});

describe('chartSeries', () => {
  it('gives a vault opened minutes ago its point in the last bucket of every interval', () => {
    // 0.01 BTC against 300 UNIT at 95,000 USD: 316.7%.
    const points = [point(NOW - 120, 1_000_000, 30_000)];
    for (const period of ['24h', '7d', '30d', '1y'] as const) {
      const series = chartSeries([price(NOW - 600, 95_000)], points, current(), period, NOW);
      expect(series).toHaveLength(1);
      expect(series[0]!.timestamp).toBe(NOW);
      expect(Math.round(series[0]!.ratio)).toBe(317);
    }
  });

  it('counts a point written after the minute clock last ticked', () => {
    // Opened at 633%, then borrowed to 380% 30 s after the clock's "now".
    const points = [point(NOW - 300, 2_000_000, 30_000), point(NOW + 30, 2_000_000, 50_000)];
    const series = chartSeries([price(NOW - 600, 95_000)], points, current(), '24h', NOW);
    expect(series.at(-1)!.ratio).toBe(380);
    expect(series.at(-1)!.timestamp).toBe(NOW + 30);
  });

  it('leaves out buckets without debt and stands in the current state when points are missing', () => {
    expect(
      chartSeries([price(NOW, 95_000)], [point(NOW - 60, 1_000_000, 0)], current(), '24h', NOW),
    ).toEqual([]);
    const fallback = chartSeries([price(NOW, 95_000)], undefined, current(), '24h', NOW);
    expect(fallback.length).toBe(288);
    expect(fallback.every((p) => Math.round(p.ratio) === 317)).toBe(true);
  });
});

function current() {
  return { sats: sats(1_000_000), debtCents: unitCents(30_000) };
}

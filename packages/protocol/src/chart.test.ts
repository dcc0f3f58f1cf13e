import { describe, expect, it } from 'vitest';
import { CHART_INTERVALS, CHART_Y_AXIS, clampToChart, ratioSeries } from './chart';

describe('chart model', () => {
  it('has the spec intervals and labels', () => {
    expect(CHART_INTERVALS['24h']).toMatchObject({ label: '1D', buckets: 288, bucketSeconds: 300 });
    expect(CHART_INTERVALS['7d']).toMatchObject({ label: '1W', buckets: 168, bucketSeconds: 3600 });
    expect(CHART_INTERVALS['30d']).toMatchObject({
      label: '1M',
      buckets: 120,
      bucketSeconds: 21_600,
    });
    expect(CHART_INTERVALS['1y']).toMatchObject({
      label: 'YTD',
      buckets: 365,
      bucketSeconds: 86_400,
    });
    for (const i of Object.values(CHART_INTERVALS)) {
      // each interval covers its period
      expect(i.buckets * i.bucketSeconds).toBe(
        { '24h': 86_400, '7d': 604_800, '30d': 2_592_000, '1y': 31_536_000 }[i.period],
      );
    }
  });
  it('has a 125..500 axis with six ticks 75 apart and the 135 line', () => {
    expect(CHART_Y_AXIS.ticks).toEqual([125, 200, 275, 350, 425, 500]);
    expect(CHART_Y_AXIS.liquidationLine).toBe(135);
    expect(clampToChart(100)).toBe(125);
    expect(clampToChart(Infinity)).toBe(500);
    expect(clampToChart(180)).toBe(180);
  });
  it('turns points and prices into one ratio per bucket from the vault opening on', () => {
    const now = 1_000_000;
    const day = 86_400;
    const points = [
      { timestamp: now - 2 * day, btc_locked: 100_000_000, unit_borrowed: 5_000_000, vaults: 1 },
      {
        timestamp: now - 287 * 300 + 10,
        btc_locked: 100_000_000,
        unit_borrowed: 6_250_000,
        vaults: 1,
      },
    ];
    const prices = [
      { timestamp: now - 3 * day, price: 100_000 },
      { timestamp: now - 30 * 60, price: 80_000 },
    ];
    const series = ratioSeries(points, prices, '24h', now);
    // the second point lands 10 s after the first bucket ends: that bucket still holds the first state
    expect(series).toHaveLength(288);
    expect(series[0]).toEqual({ timestamp: now - 287 * 300, ratio: 200, plotted: 200 });
    expect(series[1]!.ratio).toBe(160);
    // half an hour ago the price fell to $80,000: 128%, under the 135 line
    expect(series.at(-1)).toEqual({ timestamp: now, ratio: 128, plotted: 128 });
    const week = ratioSeries(points, prices, '7d', now);
    // buckets before the first point are left out
    expect(week.length).toBeLessThan(168);
    expect(week[0]!.timestamp).toBeGreaterThanOrEqual(now - 2 * day);
  });
  it('uses the first price when no price precedes a bucket', () => {
    const series = ratioSeries(
      [{ timestamp: 0, btc_locked: 100_000_000, unit_borrowed: 10_000_000, vaults: 1 }],
      [{ timestamp: 999_999, price: 150_000 }],
      '24h',
      1_000_000,
    );
    expect(series[0]!.ratio).toBe(150);
  });
});

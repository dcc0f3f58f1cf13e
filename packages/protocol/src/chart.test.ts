import { describe, expect, it } from 'vitest';
import {
  CHART_INTERVALS,
  CHART_Y_AXIS,
  chartStates,
  clampToChart,
  markerAmountText,
  markerDescription,
  ratioLine,
  ratioSummary,
} from './chart';

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
  it('spans the whole period with the vault inside it, stepping at bucket ends and at actions', () => {
    const now = 1_000_000;
    const opened = now - 3600;
    // 1 BTC against 50,000.00 UNIT, then a deposit to 1.5 BTC ten minutes ago.
    const states = [
      { timestamp: opened, btc_locked: 100_000_000, unit_borrowed: 5_000_000 },
      { timestamp: now - 600, btc_locked: 150_000_000, unit_borrowed: 5_000_000 },
    ];
    // 5-minute buckets stamped with their start, holding their close
    const prices = [
      { timestamp: now - 7200, price: 100_000 },
      { timestamp: now - 3000, price: 95_000 },
      { timestamp: now - 1200, price: 80_000 },
    ];
    const line = ratioLine({
      states,
      prices,
      actions: [
        { timestamp: opened, action: 'o' },
        { timestamp: now - 600, action: 'd' },
      ],
      period: '24h',
      now,
      openedAt: opened,
      current: { btc_locked: 150_000_000, unit_borrowed: 5_000_000, priceUsd: 90_000 },
    });
    // The vault is an hour old, the axis still spans the day: empty before the opening.
    expect(line.start).toBe(now - 86_400);
    expect(line.end).toBe(now);
    expect(line.points.map((p) => [p.timestamp - now, p.ratio, p.priceUsd])).toEqual([
      // 1 × 100,000 / 50,000 = 200%: the close of the bucket that ended before the opening
      [-3600, 200, 100_000],
      // the price falls inside the bucket that starts at -3000: the step is at its end, -2700
      [-2700, 190, 95_000],
      [-900, 160, 80_000],
      // the deposit: 160% just before, 1.5 × 80,000 / 50,000 = 240% after, the same second
      [-600, 160, 80_000],
      [-600, 240, 80_000],
      // now, at the gauge's price: 1.5 × 90,000 / 50,000 = 270%
      [0, 270, 90_000],
    ]);
    expect(line.markers.map((m) => [m.action, m.timestamp - now, m.ratio])).toEqual([
      ['o', -3600, 200],
      ['d', -600, 240],
    ]);
    expect(ratioSummary(line.points)).toEqual({ current: 270, min: 160, max: 270 });
  });

  it('gives each period its own span: a young vault looks different on 1D, 1W, 1M and YTD', () => {
    const now = 5_000_000;
    const opened = now - 600;
    const spans = (['24h', '7d', '30d', '1y'] as const).map((period) => {
      const line = ratioLine({
        states: [{ timestamp: opened, btc_locked: 100_000_000, unit_borrowed: 5_000_000 }],
        prices: [{ timestamp: now - 40_000_000, price: 100_000 }],
        period,
        now,
        openedAt: opened,
      });
      // the line starts at the opening whatever the period
      expect(line.points[0]!.timestamp).toBe(opened);
      return line.end - line.start;
    });
    expect(spans).toEqual([86_400, 604_800, 2_592_000, 31_536_000]);
  });

  it('marks liquidation and claim on the line, the claim where the line ended', () => {
    const now = 1_000_000;
    const opened = now - 3000;
    const line = ratioLine({
      // 0.01 BTC against 400.00 UNIT; the claim empties the vault
      states: [
        { timestamp: opened, btc_locked: 1_000_000, unit_borrowed: 40_000 },
        { timestamp: now - 100, btc_locked: 0, unit_borrowed: 0 },
      ],
      prices: [
        { timestamp: now - 3600, price: 95_000 },
        { timestamp: now - 1200, price: 52_000 },
      ],
      actions: [
        { timestamp: opened, action: 'o' },
        { timestamp: now - 600, action: 'l' },
        { timestamp: now - 100, action: 'x' },
      ],
      period: '24h',
      now,
      openedAt: opened,
    });
    // 0.01 × 95,000 / 400 = 237.5% → 238%; 0.01 × 52,000 / 400 = 130%
    expect(line.markers.map((m) => [m.action, m.timestamp - now, m.ratio])).toEqual([
      ['o', -3000, 238],
      ['l', -600, 130],
      ['x', -100, 130],
    ]);
    // after the claim the vault holds nothing: no ratio, the line ends
    expect(Number.isFinite(line.points.at(-1)!.ratio)).toBe(false);
  });

  it('prices each action at its own oracle price, so a liquidation is marked where it happened', () => {
    const now = 1_000_000;
    const opened = now - 120;
    const line = ratioLine({
      // 0.01 BTC against 400.00 UNIT
      states: [{ timestamp: opened, btc_locked: 1_000_000, unit_borrowed: 40_000 }],
      // the bucket now is in holds 50,000: its close is known only now
      prices: [
        { timestamp: now - 600, price: 95_000 },
        { timestamp: now - 100, price: 50_000 },
      ],
      actions: [
        { timestamp: opened, action: 'o', oracle_price: 95_000 },
        { timestamp: now - 30, action: 'l', oracle_price: 50_000 },
      ],
      period: '24h',
      now,
      openedAt: opened,
    });
    // 0.01 × 95,000 / 400 = 237.5% → 238%; the liquidation's price: 125%, at its second
    expect(line.points.map((p) => [p.timestamp - now, p.ratio])).toEqual([
      [-120, 238],
      [-30, 125],
      [0, 125],
    ]);
    expect(line.markers.map((m) => [m.action, m.ratio])).toEqual([
      ['o', 238],
      ['l', 125],
    ]);
  });

  it('draws and marks an action newer than the minute-old clock at once', () => {
    const now = 1_000_000;
    const line = ratioLine({
      states: [
        { timestamp: now - 300, btc_locked: 100_000_000, unit_borrowed: 5_000_000 },
        { timestamp: now + 20, btc_locked: 90_000_000, unit_borrowed: 5_000_000 },
      ],
      prices: [{ timestamp: now - 600, price: 100_000 }],
      actions: [
        { timestamp: now - 300, action: 'o' },
        { timestamp: now + 20, action: 'w' },
      ],
      period: '24h',
      now,
    });
    expect(line.end).toBe(now + 20);
    expect(line.markers.map((m) => [m.action, m.ratio])).toEqual([
      ['o', 200],
      ['w', 180],
    ]);
  });

  it('carries the state of an older vault in from the period start', () => {
    const now = 2_000_000;
    const day = 86_400;
    const line = ratioLine({
      // opened 40 days ago at 1 BTC against 62,500.00 UNIT; nothing since
      states: [{ timestamp: now - 40 * day, btc_locked: 100_000_000, unit_borrowed: 6_250_000 }],
      prices: [
        { timestamp: now - 31 * day, price: 100_000 },
        { timestamp: now - 2 * day, price: 0 }, // an invalid bucket is left out
        { timestamp: now - day, price: 85_000 },
      ],
      actions: [{ timestamp: now - 40 * day, action: 'o' }],
      period: '30d',
      now,
      openedAt: now - 40 * day,
    });
    expect(line.start).toBe(now - 30 * day);
    // 100,000 / 62,500 = 160%, then 85,000 / 62,500 = 136% from that 6-hour bucket's end
    expect(line.points.map((p) => [p.timestamp - now, p.ratio])).toEqual([
      [-30 * day, 160],
      [-day + 6 * 3600, 136],
      [0, 136],
    ]);
    expect(line.markers).toEqual([]);
    expect(clampToChart(line.points[1]!.ratio)).toBe(line.points[1]!.plotted);
  });

  it('leaves out moments before the first known state and keeps a debt-free stretch as a gap', () => {
    const now = 1_000_000;
    const line = ratioLine({
      states: [
        { timestamp: now - 1000, btc_locked: 100_000_000, unit_borrowed: 0 },
        { timestamp: now - 500, btc_locked: 100_000_000, unit_borrowed: 4_000_000 },
      ],
      prices: [{ timestamp: now - 5000, price: 100_000 }],
      period: '24h',
      now,
      // the points route did not carry the state of the opening into the interval
      openedAt: now - 2000,
    });
    expect(line.start).toBe(now - 86_400);
    expect(line.points.map((p) => [p.timestamp - now, p.ratio])).toEqual([
      [-1000, Infinity],
      [-500, Infinity],
      // 100,000 / 40,000 = 250%
      [-500, 250],
      [0, 250],
    ]);
    expect(line.points[0]!.plotted).toBe(500);
    // infinite ratios (no debt) are not a minimum or maximum
    expect(ratioSummary(line.points)).toEqual({ current: 250, min: 250, max: 250 });
    expect(ratioSummary([])).toBeNull();
  });

  it('ends the line where the gauge reads while the points lag behind an action', () => {
    const now = 1_000_000;
    const line = ratioLine({
      states: [{ timestamp: now - 100, btc_locked: 100_000_000, unit_borrowed: 5_000_000 }],
      prices: [{ timestamp: now - 200, price: 100_000 }],
      period: '24h',
      now,
      // a borrow to 80,000.00 UNIT the points route has not returned yet
      current: { btc_locked: 100_000_000, unit_borrowed: 8_000_000, priceUsd: 100_000 },
    });
    expect(line.points.map((p) => [p.timestamp - now, p.ratio])).toEqual([
      [-100, 200],
      [0, 200],
      [0, 125],
    ]);
  });

  it('takes the state at the interval start from the history when the points start inside it', () => {
    const now = 2_000_000;
    const day = 86_400;
    // the points route answers the week's one change; the history knows the opening 20 days ago
    const points = [
      { timestamp: now - 2 * day, btc_locked: 100_000_000, unit_borrowed: 8_000_000 },
    ];
    const records = [
      { timestamp: now - 2 * day, vault_amount: 100_000_000, amount_borrowed: 8_000_000 },
      { timestamp: now - 20 * day, vault_amount: 100_000_000, amount_borrowed: 5_000_000 },
    ];
    const states = chartStates(points, records);
    expect(states).toEqual([
      { timestamp: now - 20 * day, btc_locked: 100_000_000, unit_borrowed: 5_000_000 },
      points[0],
    ]);
    const line = ratioLine({
      states,
      prices: [{ timestamp: now - 30 * day, price: 100_000 }],
      period: '7d',
      now,
      openedAt: now - 20 * day,
    });
    // 100,000 / 50,000 = 200% from the week's start, 100,000 / 80,000 = 125% after the borrow
    expect(line.points.map((p) => [p.timestamp - now, p.ratio])).toEqual([
      [-7 * day, 200],
      [-2 * day, 200],
      [-2 * day, 125],
      [0, 125],
    ]);
  });
});

describe('markers of a young vault', () => {
  // Opened, topped up and borrowed within four minutes at $95,000, after an hour of nothing: the
  // points route still reads the opening alone (it lags), the history holds each state.
  const now = 5_000_000;
  const t0 = now - 300;
  const records = [
    {
      timestamp: t0,
      action: 'o' as const,
      oracle_price: 95_000,
      btc_amt: 1_000_000,
      unit_amt: 40_000,
      vault_amount: 1_000_000,
      amount_borrowed: 40_000,
    },
    {
      timestamp: t0 + 60,
      action: 'd' as const,
      oracle_price: 95_000,
      btc_amt: 500_000,
      unit_amt: 0,
      vault_amount: 1_500_000,
      amount_borrowed: 40_000,
    },
    {
      timestamp: t0 + 120,
      action: 'b' as const,
      oracle_price: 96_000,
      btc_amt: 0,
      unit_amt: 20_000,
      vault_amount: 1_500_000,
      amount_borrowed: 60_000,
    },
    {
      timestamp: t0 + 240,
      action: 'r' as const,
      oracle_price: 96_000,
      btc_amt: 0,
      unit_amt: 10_000,
      vault_amount: 1_500_000,
      amount_borrowed: 50_000,
    },
  ];
  const line = ratioLine({
    states: [{ timestamp: t0, btc_locked: 1_000_000, unit_borrowed: 40_000 }],
    prices: [{ timestamp: now - 3600, price: 95_000 }],
    actions: records,
    period: '24h',
    now,
    openedAt: t0,
  });

  it('sits each marker at the ratio the vault had just after that action, from its record', () => {
    // 0.01 × 95,000 / 400 = 238%; 0.015 × 95,000 / 400 = 356%; 0.015 × 96,000 / 600 = 240%;
    // 0.015 × 96,000 / 500 = 288%: every one a ratio the vault really had, none above 356%
    expect(line.markers.map((m) => [m.action, m.timestamp - t0, m.ratio])).toEqual([
      ['o', 0, 238],
      ['d', 60, 356],
      ['b', 120, 240],
      ['r', 240, 288],
    ]);
    expect(line.markers.every((m) => m.plotted === clampToChart(m.ratio))).toBe(true);
  });

  it('says what each action moved, for the tooltip', () => {
    expect(line.markers.map(markerAmountText)).toEqual([
      '0.01 BTC deposited, 400.00 UNIT borrowed',
      '0.005 BTC deposited',
      '200.00 UNIT borrowed',
      '100.00 UNIT repaid',
    ]);
    expect(markerDescription(line.markers[1]!, 'Nov 29, 2026, 04:31')).toBe(
      'Deposit BTC: 0.005 BTC deposited on Nov 29, 2026, 04:31.',
    );
  });

  it("reads a claim at the state before it, the liquidation's", () => {
    const claimed = ratioLine({
      states: [{ timestamp: t0, btc_locked: 1_000_000, unit_borrowed: 40_000 }],
      prices: [{ timestamp: now - 3600, price: 95_000 }],
      actions: [
        records[0]!,
        {
          timestamp: t0 + 60,
          action: 'l',
          oracle_price: 50_000,
          btc_amt: 1_000_000,
          unit_amt: 40_000,
          vault_amount: 1_000_000,
          amount_borrowed: 40_000,
        },
        {
          timestamp: t0 + 120,
          action: 'x',
          oracle_price: 50_000,
          btc_amt: 1_000_000,
          unit_amt: 40_000,
          vault_amount: 0,
          amount_borrowed: 0,
        },
      ],
      period: '24h',
      now,
      openedAt: t0,
    });
    expect(claimed.markers.map((m) => [m.action, m.ratio])).toEqual([
      ['o', 238],
      ['l', 125],
      ['x', 125],
    ]);
    expect(markerAmountText(claimed.markers[2]!)).toBe(
      '0.01 BTC of collateral and 400.00 UNIT of debt claimed',
    );
  });
});

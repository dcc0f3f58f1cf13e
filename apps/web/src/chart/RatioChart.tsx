import { useState } from 'react';
import { area, line } from 'd3-shape';
import { timeDay, timeHour, timeMonth, timeWeek, type TimeInterval } from 'd3-time';
import {
  CHART_INTERVALS,
  CHART_PERIODS,
  CHART_Y_AXIS,
  formatHealth,
  type RatioPoint,
  type TimePeriod,
} from '@unit/protocol';
import { usePosition } from '../api/position';
import { usePriceHistory } from '../api/price-history';
import { useVaultPoints } from '../api/vault-points';
import { MOBILE_QUERY, useMediaQuery } from '../ui/useMediaQuery';
import { useNow } from '../ui/useNow';
import { chartSeries } from './series';
import './chart.css';

// The SVG scales to its card; a narrower drawing on phones keeps the axis labels readable.
const SIZE = { desktop: { W: 800, H: 260 }, phone: { W: 400, H: 240 } } as const;
const M = { top: 12, right: 16, bottom: 24, left: 44 };

/**
 * Time-axis ticks per interval, wide and narrow, on local boundaries (d3-time), labelled with Intl
 * (no d3-scale / date-fns here: the chart loads with the dashboard, within its budget).
 */
const X_TICKS: Record<
  TimePeriod,
  { wide: TimeInterval; narrow: TimeInterval; label: Intl.DateTimeFormat }
> = {
  '24h': {
    wide: timeHour.every(6)!,
    narrow: timeHour.every(12)!,
    label: new Intl.DateTimeFormat('en-US', {
      hour: '2-digit',
      minute: '2-digit',
      hourCycle: 'h23',
    }),
  },
  '7d': {
    wide: timeDay,
    narrow: timeDay.every(2)!,
    label: new Intl.DateTimeFormat('en-US', { month: 'short', day: 'numeric' }),
  },
  '30d': {
    // weeks, not every 7th day of the month (the 29th and the 1st would touch)
    wide: timeWeek,
    narrow: timeWeek.every(2)!,
    label: new Intl.DateTimeFormat('en-US', { month: 'short', day: 'numeric' }),
  },
  '1y': {
    wide: timeMonth.every(3)!,
    narrow: timeMonth.every(4)!,
    label: new Intl.DateTimeFormat('en-US', { month: 'short' }),
  },
};

/** A linear map from a domain onto a range, clamped to the range. */
function linear([d0, d1]: [number, number], [r0, r1]: [number, number]) {
  const span = d1 - d0 || 1;
  const lo = Math.min(r0, r1);
  const hi = Math.max(r0, r1);
  return (v: number) => Math.min(hi, Math.max(lo, r0 + ((v - d0) / span) * (r1 - r0)));
}

/** Collateral ratio history with the 1D/1W/1M/YTD intervals (SPEC §2 Chart, §9). */
export function RatioChart({ vaultId }: { vaultId: string }) {
  const [period, setPeriod] = useState<TimePeriod>('24h');
  const [fullscreen, setFullscreen] = useState(false);
  const mobile = useMediaQuery(MOBILE_QUERY);
  const position = usePosition();
  const prices = usePriceHistory(period);
  const points = useVaultPoints(vaultId, period);
  const now = useNow(60_000);
  const series =
    prices.data != null
      ? chartSeries(
          prices.data.data,
          points.isError ? undefined : points.data,
          { sats: position.sats, debtCents: position.debtCents },
          period,
          Math.floor(now / 1000),
        )
      : null;
  const isFull = mobile && fullscreen;

  return (
    <section
      className={`card chart ${isFull ? 'chart--fullscreen' : ''}`}
      aria-labelledby="chart-title"
    >
      <header className="chart__head">
        <h2 id="chart-title" className="card__title">
          Collateral ratio
        </h2>
        <div className="segmented" role="group" aria-label="Chart interval">
          {CHART_PERIODS.map((p) => (
            <button key={p} type="button" aria-pressed={period === p} onClick={() => setPeriod(p)}>
              {CHART_INTERVALS[p].label}
            </button>
          ))}
        </div>
        {mobile && (
          <button
            type="button"
            className="icon-btn"
            aria-pressed={fullscreen}
            onClick={() => setFullscreen((v) => !v)}
          >
            {fullscreen ? 'Exit fullscreen' : 'Fullscreen'}
          </button>
        )}
      </header>
      <div className="chart__body">
        {prices.isPending ? (
          <div className="chart__placeholder skeleton" role="status" aria-label="Loading chart" />
        ) : series == null ? (
          <p className="chart__placeholder chart__message" role="alert">
            The chart could not be loaded.
          </p>
        ) : series.length === 0 ? (
          <p className="chart__placeholder chart__message">
            No collateral ratio history for this period yet.
          </p>
        ) : (
          <RatioSvg
            series={series}
            period={period}
            nowSeconds={Math.floor(now / 1000)}
            size={mobile ? SIZE.phone : SIZE.desktop}
          />
        )}
      </div>
    </section>
  );
}

function RatioSvg({
  series,
  period,
  nowSeconds,
  size: { W, H },
}: {
  series: RatioPoint[];
  period: TimePeriod;
  nowSeconds: number;
  size: { W: number; H: number };
}) {
  // The axis spans the whole interval, so a vault opened today sits at the right edge of 1M.
  const { buckets, bucketSeconds } = CHART_INTERVALS[period];
  const start = Math.min(series[0]!.timestamp, nowSeconds - (buckets - 1) * bucketSeconds);
  const end = Math.max(series[series.length - 1]!.timestamp, nowSeconds);
  const x = linear([start, end], [M.left, W - M.right]);
  const y = linear([CHART_Y_AXIS.min, CHART_Y_AXIS.max], [H - M.bottom, M.top]);
  const toXY = line<RatioPoint>()
    .x((d) => x(d.timestamp))
    .y((d) => y(d.plotted));
  const fill = area<RatioPoint>()
    .x((d) => x(d.timestamp))
    .y0(H - M.bottom)
    .y1((d) => y(d.plotted));
  const ticks = X_TICKS[period];
  const xTicks = (W < 600 ? ticks.narrow : ticks.wide).range(
    new Date(start * 1000),
    new Date(end * 1000 + 1),
  );
  const latest = series[series.length - 1]!;
  return (
    <svg
      viewBox={`0 0 ${W} ${H}`}
      className="chart__svg"
      role="img"
      aria-label={`Collateral ratio, latest ${formatHealth(latest.ratio)}`}
      data-points={series.length}
    >
      <defs>
        <linearGradient id="ratio-fill" x1="0" x2="0" y1="0" y2="1">
          <stop offset="0%" stopColor="var(--accent)" stopOpacity="0.35" />
          <stop offset="100%" stopColor="var(--accent)" stopOpacity="0" />
        </linearGradient>
      </defs>
      {CHART_Y_AXIS.ticks.map((t) => (
        <g key={t}>
          <line x1={M.left} x2={W - M.right} y1={y(t)} y2={y(t)} className="chart__grid" />
          <text x={M.left - 6} y={y(t)} dy="0.32em" textAnchor="end" className="chart__tick">
            {t}%
          </text>
        </g>
      ))}
      {xTicks.map((d) => (
        <text
          key={d.getTime()}
          x={x(d.getTime() / 1000)}
          y={H - 6}
          textAnchor="middle"
          className="chart__tick"
        >
          {ticks.label.format(d)}
        </text>
      ))}
      <line
        x1={M.left}
        x2={W - M.right}
        y1={y(CHART_Y_AXIS.liquidationLine)}
        y2={y(CHART_Y_AXIS.liquidationLine)}
        className="chart__liquidation"
        data-testid="liquidation-line"
      />
      <path d={fill(series) ?? ''} fill="url(#ratio-fill)" />
      <path d={toXY(series) ?? ''} className="chart__line" />
      {/* The latest ratio, visible even when the vault has a single point in this interval. */}
      <circle cx={x(latest.timestamp)} cy={y(latest.plotted)} r={5} className="chart__latest" />
    </svg>
  );
}

import { useState } from 'react';
import { scaleLinear, scaleTime } from 'd3-scale';
import { area, line } from 'd3-shape';
import { format } from 'date-fns';
import type { TimePeriod } from '@unit/protocol';
import { usePosition } from '../api/position';
import { usePriceHistory } from '../api/price-history';
import { useVaultPoints } from '../api/vault-points';
import {
  CHART_FLOOR,
  CHART_INTERVALS,
  CHART_TICKS,
  CHART_TOP,
  LIQUIDATION_THRESHOLD_PERCENT,
} from '../protocol-gaps';
import { MOBILE_QUERY, useMediaQuery } from '../ui/useMediaQuery';
import { ratioSeries, type RatioPoint } from './series';
import './chart.css';

const W = 800;
const H = 260;
const M = { top: 12, right: 16, bottom: 24, left: 44 };

/** Collateral ratio history with the 1D/1W/1M/YTD intervals (SPEC §2 Chart, §9). */
export function RatioChart({ vaultId }: { vaultId: string }) {
  const [period, setPeriod] = useState<TimePeriod>('24h');
  const [fullscreen, setFullscreen] = useState(false);
  const mobile = useMediaQuery(MOBILE_QUERY);
  const position = usePosition();
  const prices = usePriceHistory(period);
  const points = useVaultPoints(vaultId, period);
  const series =
    prices.data != null
      ? ratioSeries(prices.data.data, points.isError ? undefined : points.data, {
          sats: position.sats,
          debtCents: position.debtCents,
        })
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
          {CHART_INTERVALS.map((i) => (
            <button
              key={i.period}
              type="button"
              aria-pressed={period === i.period}
              onClick={() => setPeriod(i.period)}
            >
              {i.label}
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
          <RatioSvg series={series} period={period} />
        )}
      </div>
    </section>
  );
}

function RatioSvg({ series, period }: { series: RatioPoint[]; period: TimePeriod }) {
  const first = series[0]!.t;
  const last = series[series.length - 1]!.t;
  const x = scaleTime()
    .domain([new Date(first * 1000), new Date(Math.max(last, first + 1) * 1000)])
    .range([M.left, W - M.right]);
  const y = scaleLinear()
    .domain([CHART_FLOOR, CHART_TOP])
    .range([H - M.bottom, M.top])
    .clamp(true);
  const toXY = line<RatioPoint>()
    .x((d) => x(new Date(d.t * 1000)))
    .y((d) => y(d.ratio));
  const fill = area<RatioPoint>()
    .x((d) => x(new Date(d.t * 1000)))
    .y0(H - M.bottom)
    .y1((d) => y(d.ratio));
  const tickFormat = period === '24h' ? 'HH:mm' : period === '1y' ? 'MMM' : 'MMM d';
  const latest = series[series.length - 1]!;
  return (
    <svg
      viewBox={`0 0 ${W} ${H}`}
      className="chart__svg"
      role="img"
      aria-label={`Collateral ratio, latest ${latest.ratio}%`}
      data-points={series.length}
    >
      <defs>
        <linearGradient id="ratio-fill" x1="0" x2="0" y1="0" y2="1">
          <stop offset="0%" stopColor="var(--accent)" stopOpacity="0.35" />
          <stop offset="100%" stopColor="var(--accent)" stopOpacity="0" />
        </linearGradient>
      </defs>
      {CHART_TICKS.map((t) => (
        <g key={t}>
          <line x1={M.left} x2={W - M.right} y1={y(t)} y2={y(t)} className="chart__grid" />
          <text x={M.left - 6} y={y(t)} dy="0.32em" textAnchor="end" className="chart__tick">
            {t}%
          </text>
        </g>
      ))}
      {x.ticks(5).map((d) => (
        <text key={d.getTime()} x={x(d)} y={H - 6} textAnchor="middle" className="chart__tick">
          {format(d, tickFormat)}
        </text>
      ))}
      <line
        x1={M.left}
        x2={W - M.right}
        y1={y(LIQUIDATION_THRESHOLD_PERCENT)}
        y2={y(LIQUIDATION_THRESHOLD_PERCENT)}
        className="chart__liquidation"
        data-testid="liquidation-line"
      />
      <path d={fill(series) ?? ''} fill="url(#ratio-fill)" />
      <path d={toXY(series) ?? ''} className="chart__line" />
    </svg>
  );
}

import {
  useId,
  useLayoutEffect,
  useMemo,
  useRef,
  useState,
  type KeyboardEvent,
  type PointerEvent,
  type RefObject,
} from 'react';
import {
  ACTION_LABELS,
  CHART_Y_AXIS,
  HEALTH_BANDS,
  formatHealth,
  formatUsd,
  type RatioLine,
  type RatioLinePoint,
} from '@unit/protocol';
import { formatMoment, timeTicks } from './axis';
import { ChartMarkers, markerGroups } from './ChartMarkers';
import {
  FALLBACK_WIDTH,
  HEIGHT,
  M,
  keepSize,
  knownSize,
  linear,
  ratioScale,
  stepArea,
  stepLine,
} from './geometry';

/**
 * SPEC §9 bands shaded behind the line: under 135 liquidated, Risky 135–160, Moderate 161–195,
 * Healthy above. Drawn as continuous strips, so the boundaries sit at 160 and 195.
 */
const BANDS = [
  { from: CHART_Y_AXIS.min, to: CHART_Y_AXIS.liquidationLine, tone: 'liquidation', label: null },
  {
    from: CHART_Y_AXIS.liquidationLine,
    to: HEALTH_BANDS.risky.max,
    tone: 'risky',
    label: 'Risky',
  },
  {
    from: HEALTH_BANDS.risky.max,
    to: HEALTH_BANDS.moderate.max,
    tone: 'moderate',
    label: 'Moderate',
  },
  { from: HEALTH_BANDS.moderate.max, to: CHART_Y_AXIS.max, tone: 'healthy', label: 'Healthy' },
] as const;

/** The points a reader steps through: one per moment (the state after any action), finite only. */
export function readablePoints(line: RatioLine): RatioLinePoint[] {
  const byTime = new Map<number, RatioLinePoint>();
  for (const p of line.points) byTime.set(p.timestamp, p);
  for (const m of line.markers) {
    const p = byTime.get(m.timestamp);
    byTime.set(m.timestamp, { ...(p ?? m), action: m.action! });
  }
  return [...byTime.values()]
    .filter((p) => Number.isFinite(p.ratio))
    .sort((a, b) => a.timestamp - b.timestamp);
}

/** The element's content width, followed as it resizes; the last known until measured. */
function useSize(ref: RefObject<HTMLElement | null>): { width: number; height: number } | null {
  const [size, setSize] = useState<{ width: number; height: number } | null>(knownSize);
  useLayoutEffect(() => {
    const el = ref.current;
    if (!el || typeof ResizeObserver !== 'function') return;
    const observer = new ResizeObserver(([entry]) => {
      const box = entry!.contentRect;
      if (box.width > 0) {
        setSize(keepSize({ width: Math.round(box.width), height: Math.round(box.height) }));
      }
    });
    observer.observe(el);
    return () => observer.disconnect();
  }, [ref]);
  return size;
}

export function RatioPlot({
  line,
  label,
  summary,
  compact,
  fill,
}: {
  line: RatioLine;
  /** the chart's name */
  label: string;
  /** the ratio now and its range, read before the points */
  summary: string;
  /** a phone's drawing */
  compact: boolean;
  /** fill the height it is given (fullscreen) */
  fill: boolean;
}) {
  const boxRef = useRef<HTMLDivElement>(null);
  const summaryId = useId();
  const measured = useSize(boxRef);
  const W = measured?.width ?? FALLBACK_WIDTH[compact ? 'compact' : 'wide'];
  const H =
    fill && measured && measured.height > 160
      ? measured.height
      : HEIGHT[compact ? 'compact' : 'wide'];

  const readable = useMemo(() => readablePoints(line), [line]);
  const [active, setActive] = useState<number | null>(null);
  const activePoint =
    active != null ? (readable[Math.min(active, readable.length - 1)] ?? null) : null;

  // The axis is the period's, whatever the data: it does not move between renders.
  const start = line.start;
  const x = linear([start, line.end], [M.left, W - M.right]);
  const y = ratioScale(H);
  // The ratio is a step function of time: it holds until the next price tick or action.
  const path = stepLine(line.points, x, y);
  const shade = stepArea(line.points, x, y, H - M.bottom);
  // a phone's narrow axis still gets a tick every 6 hours on 1D: its labels are short
  const ticks = timeTicks(start, line.end, W - M.left - M.right, compact ? 56 : 84);
  const latest = readable.at(-1);
  // Each action at the ratio it left (a liquidation and its claim in the same minute are one
  // marker listing both), never lifted to a height the vault did not have.
  const groups = markerGroups(line.markers, x, y);
  const liquidationY = y(CHART_Y_AXIS.liquidationLine);

  const nearest = (clientX: number) => {
    const box = boxRef.current?.getBoundingClientRect();
    if (!box || readable.length === 0) return null;
    const px = clientX - box.left;
    let best = 0;
    for (let i = 1; i < readable.length; i++)
      if (Math.abs(x(readable[i]!.timestamp) - px) < Math.abs(x(readable[best]!.timestamp) - px))
        best = i;
    return best;
  };
  const onPointer = (e: PointerEvent) => setActive(nearest(e.clientX));
  const onKey = (e: KeyboardEvent) => {
    const last = readable.length - 1;
    const at = active ?? last;
    const next =
      e.key === 'ArrowLeft'
        ? at - 1
        : e.key === 'ArrowRight'
          ? at + 1
          : e.key === 'PageUp'
            ? at - 10
            : e.key === 'PageDown'
              ? at + 10
              : e.key === 'Home'
                ? 0
                : e.key === 'End'
                  ? last
                  : null;
    if (next == null) return;
    e.preventDefault();
    setActive(Math.max(0, Math.min(last, next)));
  };

  const tipLeft = activePoint ? x(activePoint.timestamp) : 0;
  return (
    <div
      ref={boxRef}
      className={`chart__plot ${fill ? 'chart__plot--fill' : ''}`}
      style={fill ? undefined : { height: H }}
      tabIndex={0}
      role="group"
      aria-roledescription="chart"
      aria-label={label}
      aria-describedby={summaryId}
      data-points={line.points.length}
      onPointerMove={onPointer}
      onPointerDown={onPointer}
      // A finger lifts before it reads: on touch the tooltip stays until the chart loses focus.
      onPointerLeave={(e) => e.pointerType === 'mouse' && setActive(null)}
      onFocus={() => setActive((a) => a ?? readable.length - 1)}
      onBlur={() => setActive(null)}
      onKeyDown={onKey}
    >
      <p id={summaryId} className="sr-only">
        {summary}
      </p>
      <svg width={W} height={H} className="chart__svg" aria-hidden="true" focusable="false">
        <defs>
          <linearGradient id="ratio-fill" x1="0" x2="0" y1="0" y2="1">
            <stop offset="0%" stopColor="var(--accent)" stopOpacity="0.28" />
            <stop offset="100%" stopColor="var(--accent)" stopOpacity="0" />
          </linearGradient>
        </defs>
        {BANDS.map((b) => (
          <g key={b.tone}>
            <rect
              x={M.left}
              width={W - M.left - M.right}
              y={y(b.to)}
              height={y(b.from) - y(b.to)}
              className={`chart__band chart__band--${b.tone}`}
            />
            {b.label && (
              <text
                x={M.left + 6}
                y={y(b.to)}
                dy="1.05em"
                className={`chart__band-label chart__band-label--${b.tone}`}
              >
                {b.label}
              </text>
            )}
          </g>
        ))}
        {CHART_Y_AXIS.ticks.map((t) => (
          <g key={t}>
            <line x1={M.left} x2={W - M.right} y1={y(t)} y2={y(t)} className="chart__grid" />
            <text x={M.left - 6} y={y(t)} dy="0.32em" textAnchor="end" className="chart__tick">
              {/* SPEC §9: 500 is the display cap, '500+' */}
              {t === CHART_Y_AXIS.max ? '500+%' : `${t}%`}
            </text>
          </g>
        ))}
        {ticks.map((t, i) => (
          <text
            key={t.at}
            x={x(t.at)}
            y={H - 8}
            // the first and last labels stay inside the drawing
            textAnchor={
              i === 0 && x(t.at) < M.left + 30
                ? 'start'
                : x(t.at) > W - M.right - 30
                  ? 'end'
                  : 'middle'
            }
            className="chart__tick"
          >
            {t.label}
          </text>
        ))}
        <line
          x1={M.left}
          x2={W - M.right}
          y1={liquidationY}
          y2={liquidationY}
          className="chart__liquidation"
        />
        {/* at the left, away from the latest point at the right end */}
        <text
          x={M.left + 6}
          y={liquidationY}
          dy="1.1em"
          className="chart__liquidation-label"
          data-testid="liquidation-line"
        >
          Liquidation {CHART_Y_AXIS.liquidationLine}%
        </text>
        <path d={shade} fill="url(#ratio-fill)" />
        <path d={path} className="chart__line" />
        {/* the latest point under the markers: an action there keeps its letter */}
        {latest && !activePoint && (
          <circle
            cx={x(latest.timestamp)}
            cy={y(latest.plotted)}
            r={4.5}
            className="chart__latest"
          />
        )}
        {activePoint && (
          <g className="chart__crosshair">
            <line
              x1={x(activePoint.timestamp)}
              x2={x(activePoint.timestamp)}
              y1={M.top}
              y2={H - M.bottom}
            />
            <line
              x1={M.left}
              x2={W - M.right}
              y1={y(activePoint.plotted)}
              y2={y(activePoint.plotted)}
            />
            <circle cx={x(activePoint.timestamp)} cy={y(activePoint.plotted)} r={5} />
          </g>
        )}
      </svg>
      <ChartMarkers groups={groups} width={W} height={H} onEnter={() => setActive(null)} />
      <div
        className="chart__tooltip"
        role="status"
        hidden={!activePoint}
        style={{
          left: Math.max(4, Math.min(W - 184, tipLeft + (tipLeft > W / 2 ? -188 : 12))),
          top: M.top + 4,
        }}
      >
        {activePoint && (
          <>
            <span className="chart__tooltip-date">{formatMoment(activePoint.timestamp)}</span>
            <span>
              Ratio <strong className="num">{formatHealth(activePoint.ratio)}</strong>
            </span>
            <span>
              BTC <span className="num">{formatUsd(activePoint.priceUsd)}</span>
            </span>
            {activePoint.action && (
              <span className="chart__tooltip-action">{ACTION_LABELS[activePoint.action]}</span>
            )}
          </>
        )}
      </div>
    </div>
  );
}

import { CHART_INTERVALS, CHART_PERIODS, formatHealth, ratioSummary } from '@unit/protocol';
import { MOBILE_QUERY, useMediaQuery } from '../ui/useMediaQuery';
import { FALLBACK_WIDTH, HEIGHT, M, knownSize, linear, ratioScale, stepLine } from './geometry';
import { useRatioLine } from './ratio-line';

/**
 * The chart's card while the chart's own code loads: the 1D ratio line drawn from the answers the
 * page carries (the same line the chart draws, by the same rules), without axes or controls. The
 * controls keep their room, unseen, so the card does not change height when the chart replaces it.
 */
export function RatioSketch({ vaultId }: { vaultId: string }) {
  const mobile = useMediaQuery(MOBILE_QUERY);
  const { line } = useRatioLine(vaultId, '24h');
  const summary = line ? ratioSummary(line.points) : null;
  const H = HEIGHT[mobile ? 'compact' : 'wide'];
  const W = knownSize()?.width ?? FALLBACK_WIDTH[mobile ? 'compact' : 'wide'];
  const path =
    line && summary
      ? stepLine(line.points, linear([line.start, line.end], [M.left, W - M.right]), ratioScale(H))
      : '';
  return (
    <section className="card chart" aria-labelledby="chart-title" aria-busy="true">
      <header className="chart__head">
        <div className="chart__title">
          <h2 id="chart-title" className="card__title">
            Collateral ratio
          </h2>
          {summary && (
            <p className="chart__summary num" aria-hidden="true">
              <span>
                Now <strong>{formatHealth(summary.current)}</strong>
              </span>
              <span>Low {formatHealth(summary.min)}</span>
              <span>High {formatHealth(summary.max)}</span>
            </p>
          )}
        </div>
        <div className="chart__controls" aria-hidden="true" style={{ visibility: 'hidden' }}>
          <div className="segmented">
            {CHART_PERIODS.map((p) => (
              <button key={p} type="button" tabIndex={-1} disabled>
                {CHART_INTERVALS[p].label}
              </button>
            ))}
          </div>
          {mobile && (
            <button type="button" className="btn chart__toggle" tabIndex={-1} disabled>
              <span className="chart__toggle-icon">⤢</span>
              Fullscreen
            </button>
          )}
        </div>
      </header>
      <div className="chart__body">
        {path ? (
          <div
            className="chart__plot"
            style={{ height: H }}
            role="status"
            aria-label="Loading chart"
          >
            <svg
              width="100%"
              height={H}
              viewBox={`0 0 ${W} ${H}`}
              preserveAspectRatio="none"
              className="chart__svg"
              aria-hidden="true"
              focusable="false"
            >
              <path d={path} className="chart__line" vectorEffect="non-scaling-stroke" />
            </svg>
          </div>
        ) : (
          <div className="chart__placeholder skeleton" role="status" aria-label="Loading chart" />
        )}
      </div>
    </section>
  );
}

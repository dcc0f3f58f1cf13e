import { useEffect, useRef, useState, type KeyboardEvent, type RefObject } from 'react';
import {
  CHART_INTERVALS,
  CHART_PERIODS,
  formatHealth,
  ratioSummary,
  type RatioSummary,
  type TimePeriod,
} from '@unit/protocol';
import { MOBILE_QUERY, useMediaQuery } from '../ui/useMediaQuery';
import { useRatioLine } from './ratio-line';
import { RatioPlot } from './RatioPlot';
import './chart.css';

/** Collateral ratio over the 1D/1W/1M/YTD intervals (SPEC §2 Chart, §9). */
export function RatioChart({ vaultId }: { vaultId: string }) {
  const [period, setPeriod] = useState<TimePeriod>('24h');
  const [fullscreen, setFullscreen] = useState(false);
  const mobile = useMediaQuery(MOBILE_QUERY);
  const { line, loading } = useRatioLine(vaultId, period);
  // SPEC §2: the fullscreen toggle is a phone's; a screen that widens leaves fullscreen.
  const isFull = mobile && fullscreen;
  const summary = line ? ratioSummary(line.points) : null;
  const label = CHART_INTERVALS[period].label;

  const sectionRef = useRef<HTMLElement>(null);
  const toggleRef = useRef<HTMLButtonElement>(null);
  useFullscreen(isFull, () => setFullscreen(false), sectionRef, toggleRef);

  return (
    <section
      ref={sectionRef}
      className={`card chart ${isFull ? 'chart--fullscreen' : ''}`}
      aria-labelledby="chart-title"
      {...(isFull ? { role: 'dialog', 'aria-modal': true } : {})}
      onKeyDown={isFull ? (e) => trapTab(e, sectionRef.current) : undefined}
    >
      <header className="chart__head">
        <div className="chart__title">
          <h2 id="chart-title" className="card__title">
            Collateral ratio
          </h2>
          {summary && <SummaryLine summary={summary} />}
        </div>
        <div className="chart__controls">
          <div className="segmented" role="group" aria-label="Chart interval">
            {CHART_PERIODS.map((p) => (
              <button
                key={p}
                type="button"
                aria-pressed={period === p}
                onClick={() => setPeriod(p)}
              >
                {CHART_INTERVALS[p].label}
              </button>
            ))}
          </div>
          {mobile && (
            <button
              ref={toggleRef}
              type="button"
              className={`btn chart__toggle ${isFull ? 'chart__toggle--close' : ''}`}
              aria-pressed={isFull}
              onClick={() => setFullscreen((v) => !v)}
            >
              <span aria-hidden="true" className="chart__toggle-icon">
                {isFull ? '✕' : '⤢'}
              </span>
              {isFull ? 'Exit fullscreen' : 'Fullscreen'}
            </button>
          )}
        </div>
      </header>
      <div className="chart__body">
        {loading ? (
          <div className="chart__placeholder skeleton" role="status" aria-label="Loading chart" />
        ) : line == null ? (
          <p className="chart__placeholder chart__message" role="alert">
            The chart could not be loaded.
          </p>
        ) : summary == null ? (
          <p className="chart__placeholder chart__message">
            No collateral ratio in this period: the vault had no UNIT debt.
          </p>
        ) : (
          <RatioPlot
            line={line}
            label={`Chart of the collateral ratio, ${label}`}
            summary={summaryText(summary, label)}
            compact={mobile}
            fill={isFull}
          />
        )}
      </div>
    </section>
  );
}

function SummaryLine({ summary }: { summary: RatioSummary }) {
  return (
    <p className="chart__summary num" aria-hidden="true">
      <span>
        Now <strong>{formatHealth(summary.current)}</strong>
      </span>
      <span>Low {formatHealth(summary.min)}</span>
      <span>High {formatHealth(summary.max)}</span>
    </p>
  );
}

/** What a screen reader hears first: the ratio now and its range over the interval. */
function summaryText(summary: RatioSummary, interval: string): string {
  return (
    `Collateral ratio now ${formatHealth(summary.current)}; over ${interval} ` +
    `lowest ${formatHealth(summary.min)}, highest ${formatHealth(summary.max)}. ` +
    'Use the left and right arrow keys to read each point.'
  );
}

/**
 * Fullscreen is a modal view: focus moves to its close button, Escape leaves it, the page behind
 * does not scroll, and focus returns to the toggle when it ends.
 */
function useFullscreen(
  active: boolean,
  close: () => void,
  section: RefObject<HTMLElement | null>,
  toggle: RefObject<HTMLButtonElement | null>,
) {
  const closeRef = useRef(close);
  useEffect(() => {
    closeRef.current = close;
  });
  useEffect(() => {
    if (!active) return;
    const button = toggle.current;
    button?.focus();
    const onKey = (e: globalThis.KeyboardEvent) => {
      if (e.key === 'Escape') {
        e.preventDefault();
        closeRef.current();
      }
    };
    document.addEventListener('keydown', onKey);
    const overflow = document.body.style.overflow;
    document.body.style.overflow = 'hidden';
    return () => {
      document.removeEventListener('keydown', onKey);
      document.body.style.overflow = overflow;
      // the toggle stays mounted: it reads Fullscreen again and keeps the focus
      button?.focus();
    };
  }, [active, section, toggle]);
}

/** Keeps Tab inside the fullscreen view. */
function trapTab(e: KeyboardEvent, root: HTMLElement | null) {
  if (e.key !== 'Tab' || !root) return;
  const focusables = [
    ...root.querySelectorAll<HTMLElement>(
      'button:not([disabled]):not([tabindex="-1"]), [tabindex="0"]',
    ),
  ];
  if (focusables.length === 0) return;
  const first = focusables[0]!;
  const last = focusables.at(-1)!;
  if (e.shiftKey && document.activeElement === first) {
    e.preventDefault();
    last.focus();
  } else if (!e.shiftKey && document.activeElement === last) {
    e.preventDefault();
    first.focus();
  }
}

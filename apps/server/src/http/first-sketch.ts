// The chart's card in the page's dashboard (first-dashboard.ts): the vault's 1D collateral ratio line
// as the app's sketch draws it before the chart's code has loaded (apps/web/src/chart/RatioSketch.tsx:
// the same elements, @unit/protocol's ratioLine from the same answers and its one drawing), so the
// line is on screen with the first paint too. The page cannot know the screen's width: it draws at
// a phone's size, and its own styles give the plot the height the app's sketch gives it on each.
import {
  CHART_FALLBACK_WIDTH,
  CHART_HEIGHT,
  CHART_INTERVALS,
  CHART_MARGIN,
  CHART_PERIODS,
  chartStates,
  formatHealth,
  linearScale,
  ratioLine,
  ratioScale,
  ratioSummary,
  stepLine,
  toWireNumber,
  type HistoryPointDto,
  type PriceHistoryDto,
  type VaultHistoryRecordDto,
  type VaultReading,
} from '@unit/protocol';

/** The app's MOBILE_QUERY (apps/web/src/ui/useMediaQuery.ts): under it the sketch is compact. */
const WIDE_FROM_PX = 721;

/** What the sketch reads, as the page carries it. */
export interface FirstSketchData {
  prices?: PriceHistoryDto | undefined;
  points?: HistoryPointDto[] | undefined;
  records: VaultHistoryRecordDto[];
  openedAt: number;
  /** the state the gauge reads, at the price on screen */
  confirmed: VaultReading;
  priceUsd: number;
  now: number;
}

const joined = (a: string, b: string) => `${a}<!-- -->${b}`;

/** The plot's height by the screen's width, as the app's sketch sets it; a phone's toggle. */
const style =
  `<style>.first-plot{height:${CHART_HEIGHT.wide}px}.first-toggle{display:none}` +
  `@media (max-width:${WIDE_FROM_PX - 1}px){.first-plot{height:${CHART_HEIGHT.compact}px}` +
  `.first-toggle{display:inline-flex}}</style>`;

function line(data: FirstSketchData): { path: string; summary: string } | null {
  if (!data.prices || data.prices.error || !data.points) return null;
  const drawn = ratioLine({
    states: chartStates(data.points, data.records),
    prices: data.prices.data,
    actions: data.records,
    period: '24h',
    now: data.now,
    openedAt: data.openedAt,
    current: {
      btc_locked: toWireNumber(data.confirmed.sats),
      unit_borrowed: toWireNumber(data.confirmed.debtCents),
      priceUsd: data.priceUsd,
    },
  });
  const summary = ratioSummary(drawn.points);
  if (!summary) return null;
  const H = CHART_HEIGHT.compact;
  const W = CHART_FALLBACK_WIDTH.compact;
  const x = linearScale([drawn.start, drawn.end], [CHART_MARGIN.left, W - CHART_MARGIN.right]);
  const path = stepLine(drawn.points, x, ratioScale(H));
  if (!path) return null;
  return {
    path,
    summary:
      `<p class="chart__summary num" aria-hidden="true"><span>Now <strong>${formatHealth(summary.current)}</strong></span>` +
      `<span>${joined('Low ', formatHealth(summary.min))}</span><span>${joined('High ', formatHealth(summary.max))}</span></p>`,
  };
}

/** The chart's card: the line when the answers draw one, else the sketch's loading placeholder. */
export function firstSketch(data: FirstSketchData): string {
  const drawn = line(data);
  const H = CHART_HEIGHT.compact;
  const W = CHART_FALLBACK_WIDTH.compact;
  const body = drawn
    ? `<div class="chart__plot first-plot" role="status" aria-label="Loading chart">` +
      `<svg width="100%" height="100%" viewBox="0 0 ${W} ${H}" preserveAspectRatio="none" class="chart__svg" aria-hidden="true" focusable="false">` +
      `<path d="${drawn.path}" class="chart__line" vector-effect="non-scaling-stroke"></path></svg></div>`
    : `<div class="chart__placeholder skeleton" role="status" aria-label="Loading chart"></div>`;
  return (
    style +
    `<section class="card chart" aria-labelledby="chart-title" aria-busy="true">` +
    `<header class="chart__head"><div class="chart__title"><h2 id="chart-title" class="card__title">Collateral ratio</h2>${drawn?.summary ?? ''}</div>` +
    `<div class="chart__controls" aria-hidden="true" style="visibility:hidden"><div class="segmented">` +
    CHART_PERIODS.map(
      (p) => `<button type="button" tabindex="-1" disabled="">${CHART_INTERVALS[p].label}</button>`,
    ).join('') +
    `</div><button type="button" class="btn chart__toggle first-toggle" tabindex="-1" disabled=""><span class="chart__toggle-icon">⤢</span>Fullscreen</button>` +
    `</div></header><div class="chart__body">${body}</div></section>`
  );
}

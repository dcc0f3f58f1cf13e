// The dashboard's cards in the page itself, for a returning wallet's vault (first-page.ts): a phone
// shows the vault's figures with the first paint instead of after ~200 KB of script. The markup is
// the dashboard's own (apps/web/src/vault/Dashboard.tsx, HealthGauge.tsx: the same elements and
// classes, so the page's styles lay it out the same and the app's first render replaces it without
// a shift), its figures computed by @unit/protocol's readings and formats as the dashboard's are.
// Only the plain case is drawn: an active vault, no record waiting for its block, a fresh price and
// a ratio above the liquidation line. Any other page keeps the prerendered shell until the app
// takes over. Nothing in it is private: it is what GET /api/vaults?pubkey= answers anyone.
import { firstSketch } from './first-sketch';
import {
  CONTENT,
  GAUGE_ARCS,
  HEALTH_BAND_COLOURS,
  HEALTH_BAND_LABELS,
  HEALTH_BAND_RANGES,
  cardReadings,
  centsToUnitString,
  formatHealth,
  formatUsd,
  formatUsdCents,
  gaugeArcPath,
  gaugeMarker,
  healthBand,
  satsToBtcString,
  satsValueUsdCents,
  type BitcoinPriceDto,
  type HistoryPointDto,
  type LiquidationDistance,
  type PriceHistoryDto,
  type VaultDto,
  type VaultHistoryRecordDto,
} from '@unit/protocol';
import { escapeHtml } from '../html';

const READING = CONTENT.reading;

/** What the page carries about the wallet's vault (first-page.ts). */
export interface FirstDashboardData {
  vault: VaultDto;
  /** the newest page of its history, as GET /api/vaults/:id/history answers it */
  records: VaultHistoryRecordDto[];
  price: BitcoinPriceDto;
  /** the 24h prices and the vault's 24h chart points, for the chart's line */
  prices?: PriceHistoryDto;
  points?: HistoryPointDto[];
  /** unix seconds */
  now: number;
}

/**
 * Two text nodes, as React writes `{figure} UNIT`: the browser measures each node on its own, and
 * a figure painted as one node is a pixel narrower than the app's, which then counted as a new,
 * later largest paint.
 */
const joined = (a: string, b: string) => `${a}<!-- -->${b}`;

const skeleton = (width: string, height: string) =>
  `<span class="skeleton" style="width:${width};height:${height}" aria-hidden="true"></span>`;
/** An action button's place while the wallet reconnects (Dashboard's `action`). */
const actionSlots = `<div class="card__actions">${skeleton('9ch', '36px')}${skeleton('9ch', '36px')}</div>`;

function distanceText(distance: LiquidationDistance): string {
  return distance.usdCents > 0n
    ? READING.liquidationPrice.above(
        `${distance.percent.toFixed(1)}%`,
        formatUsdCents(distance.usdCents),
      )
    : READING.liquidationPrice.below;
}

function gauge(ratio: number, hasDebt: boolean): string {
  const band = hasDebt ? healthBand(ratio) : null;
  const value = hasDebt ? formatHealth(ratio) : formatHealth(Infinity);
  const label = `Collateral ratio ${value}${hasDebt && band ? `, ${HEALTH_BAND_LABELS[band]}` : ''}`;
  const arcs = GAUGE_ARCS.map(
    (d) =>
      `<path d="${gaugeArcPath(d)}" fill="var(--${HEALTH_BAND_COLOURS[d.band]})" opacity="${band === d.band ? 1 : 0.35}" data-band="${d.band}"></path>`,
  ).join('');
  const marker = gaugeMarker(ratio, hasDebt);
  return (
    `<section class="card gauge" aria-labelledby="gauge-title">` +
    `<h2 id="gauge-title" class="card__title">Vault health</h2>` +
    `<svg viewBox="-110 -110 220 130" class="gauge__svg" role="group" aria-label="${escapeHtml(label)}">` +
    arcs +
    `<g transform="translate(${marker.x} ${marker.y})" class="gauge__marker"><circle r="6"></circle></g>` +
    `<text y="-18" text-anchor="middle" class="gauge__value">${value}</text>` +
    `<text y="4" text-anchor="middle" class="gauge__band">${band ? HEALTH_BAND_LABELS[band] : ''}</text>` +
    `</svg><p class="gauge__subtitle" aria-live="polite">${band ? HEALTH_BAND_RANGES[band] : ''}</p>` +
    `</section>`
  );
}

/** The dashboard's markup for the plain case, or null when the page should not draw it. */
export function firstDashboard(data: FirstDashboardData): string | null {
  const { vault, records, price } = data;
  if (vault.status !== 'active' || price.stale || !(price.USD > 0)) return null;
  if (records.some((r) => !r.confirmed)) return null;
  const { confirmed, pending } = cardReadings(
    records,
    { sats: vault.btc_locked, debtCents: vault.unit_borrowed },
    price.USD,
  );
  const hasDebt = confirmed.debtCents > 0n;
  if (pending !== null || (hasDebt && healthBand(confirmed.ratio) === null)) return null;
  const usd = satsValueUsdCents(confirmed.sats, price.USD);
  const liquidation =
    confirmed.liquidationCents === null ? 'N/A' : formatUsdCents(confirmed.liquidationCents);
  const distance = confirmed.distance
    ? `<div><dt>${READING.liquidationPrice.distance}</dt><dd data-testid="liquidation-distance">${distanceText(confirmed.distance)}</dd></div>`
    : '';
  return (
    `<div class="dashboard"><header class="dashboard__head"><h1>${escapeHtml(vault.name)}</h1></header>` +
    `<div class="dashboard__grid">` +
    `<section class="card" aria-labelledby="btc-card"><h2 id="btc-card" class="card__title">BTC deposited</h2>` +
    `<p class="card__value num" data-testid="btc-deposited">${joined(satsToBtcString(confirmed.sats), ' BTC')}</p>` +
    `<p class="muted num">${usd === null ? skeleton('8ch', '1em') : formatUsdCents(usd)}</p>${actionSlots}</section>` +
    `<section class="card" aria-labelledby="unit-card"><h2 id="unit-card" class="card__title">UNIT loan balance</h2>` +
    `<p class="card__value num" data-testid="unit-debt">${joined(centsToUnitString(confirmed.debtCents), ' UNIT')}</p>` +
    `<p class="muted num">${joined('In wallet: ', '—')}</p>${actionSlots}</section>` +
    gauge(confirmed.ratio, hasDebt) +
    `<section class="card" aria-labelledby="liq-card"><h2 id="liq-card" class="card__title">Liquidation price</h2>` +
    `<p class="card__value num" data-testid="liquidation-price">${liquidation}</p>` +
    `<dl class="liq-figures num"><div><dt>${READING.liquidationPrice.current}</dt>` +
    `<dd data-testid="btc-price-now">${formatUsd(price.USD)}</dd></div>${distance}</dl></section>` +
    `</div>${firstSketch({ ...data, openedAt: vault.created_at, confirmed, priceUsd: price.USD })}</div>`
  );
}

/** The prerendered shell's page content (apps/web/src/app/Shell.tsx: the welcome section). */
const SHELL_MAIN = /(<main class="main">)[\s\S]*?(<\/main>)/;

/** The shell with the dashboard in place of the welcome section; unchanged without one. */
export function withDashboard(html: string, dashboard: string | null): string {
  if (dashboard === null || !SHELL_MAIN.test(html)) return html;
  return html.replace(SHELL_MAIN, (_all, open: string, close: string) => open + dashboard + close);
}

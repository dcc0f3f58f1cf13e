// The web app's page with its first data in it. On a slow phone each request the app makes before
// it can show a figure costs a round trip after its script has arrived (config, then the price,
// then the wallet's vault, then its history and chart points): the server answers those requests
// itself, in the page. The answers are the API's own (asked of this server through its routes, so
// they cannot differ), keyed by the exact URL the app asks; the app takes each one once instead of
// fetching it (apps/web/src/api/first-data.ts) and fetches as usual whatever is not there.
//
// Which vault: the page cannot know the wallet before its script runs, so the app keeps the public
// key of the last connected wallet's vault in a cookie (VAULT_KEY_COOKIE; a public key, never a
// secret). A cookie naming no vault, or none at all, gets the data every page reads.
import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import {
  formatUsd,
  type BitcoinPriceDto,
  type HistoryPointDto,
  type PriceHistoryDto,
  type VaultDto,
} from '@unit/protocol';
import { firstDashboard, withDashboard } from './first-dashboard';
import { takeTurns } from './turns';

export const VAULT_KEY_COOKIE = 'unit_vault_key';
export const FIRST_DATA_ID = 'first-data';

/** What every page asks first: every URL and setting, the header's price and its 24h change. */
const EVERY_PAGE = ['/api/config', '/api/bitcoin-price', '/api/price-history?timePeriod=24h'];
/** What a wallet's dashboard asks first: its vault, then that vault's newest history and chart. */
const vaultOf = (pubkey: string) => `/api/vaults?pubkey=${pubkey}`;
const vaultReads = (vaultId: string) => {
  const id = encodeURIComponent(vaultId);
  return [`/api/vaults/${id}/history?limit=20`, `/api/vaults/${id}/points?timePeriod=24h`];
};

/** The vault key a cookie names: 32 bytes of lower-case hex, or nothing. */
export function vaultKeyCookie(header: string | undefined): string | null {
  const match = header?.match(new RegExp(`(?:^|;\\s*)${VAULT_KEY_COOKIE}=([0-9a-f]{64})(?:;|$)`));
  return match?.[1] ?? null;
}

/** A page does not wait longer than this for an answer: the app asks for a missing one itself. */
export const FIRST_DATA_WAIT_MS = 1_000;

/** One GET of this server's own routes: its JSON when answered 200 in time, else null. */
async function answer(app: FastifyInstance, url: string): Promise<unknown> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<null>(
    (done) => (timer = setTimeout(() => done(null), FIRST_DATA_WAIT_MS)),
  );
  try {
    const res = await Promise.race([app.inject({ method: 'GET', url }), late]);
    return res && res.statusCode === 200 ? res.json() : null;
  } catch {
    return null;
  } finally {
    clearTimeout(timer);
  }
}

/** The JSON answers of this server's own GET routes; a URL not answered (200, in time) is left out. */
async function answers(app: FastifyInstance, urls: string[]): Promise<Record<string, unknown>> {
  const replies = await Promise.all(
    urls.map(async (url) => {
      const body = await answer(app, url);
      return body === null ? null : ([url, body] as const);
    }),
  );
  return Object.fromEntries(replies.filter((r) => r !== null));
}

/**
 * A page's first data is read in pieces, each on a turn of the event loop of its own (turns.ts):
 * a page is a few milliseconds of work, and eight asked at once held the loop for 40 ms in one go.
 */
const pageTurn = takeTurns();

export async function firstData(
  app: FastifyInstance,
  pubkey: string | null,
): Promise<{ data: Record<string, unknown>; hasVault: boolean; dashboard: string | null }> {
  const turn = pageTurn;
  await turn();
  const everyPage = await answers(app, EVERY_PAGE);
  if (pubkey) await turn();
  const vault = pubkey ? await answers(app, [vaultOf(pubkey)]) : {};
  const found = pubkey ? (vault[vaultOf(pubkey)] as VaultDto[] | undefined) : [];
  const vaultId = found?.[0]?.vault_id;
  if (typeof vaultId === 'string') await turn();
  const ofVault = typeof vaultId === 'string' ? await answers(app, vaultReads(vaultId)) : {};
  const data = { ...everyPage, ...vault, ...ofVault };
  // The cards' markup is a piece of its own.
  if (vaultId !== undefined) await turn();
  return { data, hasVault: vaultId !== undefined, dashboard: dashboardOf(data, found?.[0]) };
}

/** The dashboard's cards drawn from the answers the page carries, when it has them all. */
function dashboardOf(data: Record<string, unknown>, vault: VaultDto | undefined): string | null {
  if (!vault) return null;
  const [historyUrl, pointsUrl] = vaultReads(vault.vault_id);
  const history = data[historyUrl!] as { records?: unknown } | undefined;
  const price = data['/api/bitcoin-price'] as BitcoinPriceDto | undefined;
  if (!price || !Array.isArray(history?.records)) return null;
  return firstDashboard({
    vault,
    records: history.records,
    price,
    prices: data[EVERY_PAGE[2]!] as PriceHistoryDto | undefined,
    points: data[pointsUrl!] as HistoryPointDto[] | undefined,
    now: Math.floor(Date.now() / 1000),
  });
}

/** A data block (never run as script): nothing in it may close the element. */
const dataScript = (data: unknown) =>
  `<script type="application/json" id="${FIRST_DATA_ID}">${JSON.stringify(data).replace(
    /</g,
    '\\u003c',
  )}</script>`;

/** The prerendered shell's price placeholder (apps/web/src/app/Shell.tsx). */
const PRICE_SLOT = /<span class="skeleton" data-first-price=""[^>]*><\/span>/;

/** The shell with the price the header shows once loaded; a stale one is left to the app to say. */
export function withPrice(html: string, price: BitcoinPriceDto | undefined): string {
  if (!price || price.stale || !Number.isFinite(price.USD) || price.USD <= 0) return html;
  // formatUsd writes digits, separators and a dollar sign only: nothing to escape
  return html.replace(PRICE_SLOT, `<strong class="num">${formatUsd(price.USD)}</strong>`);
}

const brotli = promisify(brotliCompress);
const gzipAsync = promisify(gzip);
/** A fast brotli level: the page is compressed per request, off the event loop. */
const BROTLI_LEVEL = 5;
/** 256 KB: a page with its data is about 60 KB; a longer one is still compressed, a little less. */
const BROTLI_WINDOW_BITS = 18;

export interface PageTemplate {
  html: string;
  /**
   * The page with the app's whole stylesheet inline instead of the shell's rules and the link at
   * its end: a returning wallet's dashboard, drawn in the page, paints with it at once.
   */
  dashboardHtml: string;
  /** a modulepreload of the chart's code, for a page that will show a vault's chart */
  chartPreload: string | null;
}

export async function sendFirstPage(
  app: FastifyInstance,
  template: PageTemplate,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<FastifyReply> {
  const { data, hasVault, dashboard } = await firstData(
    app,
    vaultKeyCookie(request.headers.cookie),
  );
  await pageTurn();
  const page = dashboard === null ? template.html : template.dashboardHtml;
  let html = withPrice(page, data['/api/bitcoin-price'] as BitcoinPriceDto | undefined);
  html = withDashboard(html, dashboard);
  html = html.replace('</body>', `${dataScript(data)}</body>`);
  if (hasVault && template.chartPreload)
    html = html.replace('</head>', `${template.chartPreload}</head>`);
  const accepts = String(request.headers['accept-encoding'] ?? '');
  // The page differs by wallet: no shared cache may keep it, and it is asked anew each visit.
  reply
    .header('cache-control', 'private, no-cache')
    .header('vary', 'accept-encoding, cookie')
    .type('text/html; charset=utf-8');
  if (/\bbr\b/.test(accepts)) {
    const body = await brotli(html, {
      params: {
        [constants.BROTLI_PARAM_QUALITY]: BROTLI_LEVEL,
        // A window the page's size, not brotli's default 4 MB: the encoder's set-up and tear-down
        // (the state it allocates and frees) run on the event loop, and shrank by half with this.
        [constants.BROTLI_PARAM_LGWIN]: BROTLI_WINDOW_BITS,
        [constants.BROTLI_PARAM_SIZE_HINT]: Buffer.byteLength(html),
      },
    });
    return reply.header('content-encoding', 'br').send(body);
  }
  if (/\bgzip\b/.test(accepts)) {
    return reply.header('content-encoding', 'gzip').send(await gzipAsync(html));
  }
  return reply.send(html);
}

/** The chart's chunk as the build's manifest names it (vite.config.ts writes the manifest). */
const CHART_SOURCE = 'src/chart/RatioChart.tsx';

/**
 * The built page inlines the rules of its prerendered shell in its head and links the app's
 * stylesheet at the end of its body (apps/web/scripts/critical-styles.ts).
 */
const SHELL_STYLE = /<style>[\s\S]*?<\/style>/;
const STYLESHEET_LINK = /<link rel="stylesheet"[^>]*href="\/(assets\/[\w.-]+\.css)"[^>]*>/;

/** The page with the whole stylesheet inline (readAsset reads a file of the build, or null). */
function withWholeStylesheet(html: string, readAsset: (file: string) => string | null): string {
  const link = html.match(STYLESHEET_LINK);
  const css = link ? readAsset(link[1]!) : null;
  if (!link || css === null || !SHELL_STYLE.test(html)) return html;
  const style = `<style>${css.replaceAll('</style', '<\\/style')}</style>`;
  return html.replace(link[0], '').replace(SHELL_STYLE, () => style);
}

/** The built page, and the chart's code to preload when it will show; read once at start. */
export function loadPageTemplate(
  html: string,
  manifestJson: string | null,
  readAsset: (file: string) => string | null = () => null,
): PageTemplate {
  let chartPreload: string | null = null;
  try {
    const manifest = manifestJson
      ? (JSON.parse(manifestJson) as Record<string, { file?: unknown }>)
      : {};
    const file = manifest[CHART_SOURCE]?.file;
    if (typeof file === 'string' && /^assets\/[\w.-]+\.js$/.test(file))
      chartPreload = `<link rel="modulepreload" crossorigin href="/${file}">`;
  } catch {
    // no manifest, or not one of this build's: the chart loads when the dashboard asks for it
  }
  return { html, dashboardHtml: withWholeStylesheet(html, readAsset), chartPreload };
}

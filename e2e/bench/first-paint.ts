// The web app on a slow phone (phone.ts: 390 px, 4x CPU, Slow 4G, cold cache), measured in
// Debian's Chromium against the real server serving the built app (`npm run build` first):
// - the welcome page of a first visit: first contentful paint, largest contentful paint, the BTC
//   price in the header, layout shift;
// - the dashboard of a returning wallet with a vault: its cards' figures, the chart's line, largest
//   contentful paint, layout shift, and the interaction latency (INP) of opening a drawer and of
//   typing an amount in it.
// Each figure is the median of the runs, printed beside its goal; a missed goal fails the process.
import { chromium, type Page } from '@playwright/test';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { startServer } from '../support/server';
import { observe, pageNow, readFigures, waitForMoment } from './in-page';
import { phonePage, report, type Figure, type StorageState } from './phone';
import { walletWithVault } from './vault-setup';

const RUNS = 3;
const SETTLE_MS = 1_000;

if (!existsSync(resolve(import.meta.dirname, '../../apps/web/dist/index.html'))) {
  console.error('apps/web/dist is not built: run `npm run build` first');
  process.exit(1);
}

const figure = (name: string, goal: number, unit: Figure['unit']): Figure => ({
  name,
  goal,
  unit,
  samples: [],
});
const welcome = {
  fcp: figure('welcome first contentful paint', 1_000, 's'),
  price: figure('welcome BTC price shown', 1_500, 's'),
  lcp: figure('welcome largest contentful paint', 2_000, 's'),
  cls: figure('welcome cumulative layout shift', 0.1, ''),
};
const dashboard = {
  figures: figure("dashboard cards' figures shown", 2_000, 's'),
  chart: figure("dashboard chart's line drawn", 2_000, 's'),
  lcp: figure('dashboard largest contentful paint', 2_000, 's'),
  cls: figure('dashboard cumulative layout shift', 0.1, ''),
  openDrawer: figure('INP opening the deposit drawer', 200, 'ms'),
  typeAmount: figure('INP typing an amount', 200, 'ms'),
};
const transferred: number[] = [];
const welcomeDocument: { start: number; end: number; bytes: number }[] = [];

const server = await startServer();
const browser = await chromium.launch({
  executablePath: '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run'],
});

async function welcomeRun(): Promise<void> {
  const { context, page } = await phonePage(browser);
  await observe(page);
  await page.goto(`${server.url}/`, { waitUntil: 'load' });
  welcome.price.samples.push(await waitForMoment(page, 'price'));
  // the page measured is the welcome page (it shows Create Vault once it is up)
  await page.getByText('Create Vault').first().waitFor({ timeout: 30_000 });
  await page.waitForTimeout(SETTLE_MS);
  const read = await readFigures(page);
  welcome.fcp.samples.push(read.fcp ?? Infinity);
  welcome.lcp.samples.push(read.lcp ?? Infinity);
  welcome.cls.samples.push(read.cls);
  welcomeDocument.push(await documentTiming(page));
  await context.close();
}

/** When the page's HTML began and finished arriving (ms from navigation start) and its size. */
async function documentTiming(page: Page): Promise<{ start: number; end: number; bytes: number }> {
  return page.evaluate(() => {
    const nav = performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming;
    return { start: nav.responseStart, end: nav.responseEnd, bytes: nav.encodedBodySize };
  });
}

async function dashboardRun(state: StorageState): Promise<void> {
  const phone = await phonePage(browser, state);
  const { page } = phone;
  await observe(page);
  await page.goto(`${server.url}/`);
  dashboard.figures.samples.push(await waitForMoment(page, 'figures'));
  dashboard.chart.samples.push(await waitForMoment(page, 'chart'));
  transferred.push(phone.transferred());
  await page.waitForTimeout(SETTLE_MS);
  const read = await readFigures(page);
  dashboard.lcp.samples.push(read.lcp ?? Infinity);
  dashboard.cls.samples.push(read.cls);

  const opening = await pageNow(page);
  await page.getByRole('button', { name: 'Deposit', exact: true }).first().click();
  const drawer = page.getByRole('dialog');
  await drawer.getByRole('heading', { name: 'Deposit' }).waitFor({ timeout: 30_000 });
  await page.waitForTimeout(SETTLE_MS);
  dashboard.openDrawer.samples.push((await readFigures(page)).inp(opening));

  const typing = await pageNow(page);
  await drawer.locator('input[inputmode="decimal"]').first().click();
  await page.keyboard.type('0.0125', { delay: 120 });
  await page.waitForTimeout(SETTLE_MS);
  dashboard.typeAmount.samples.push((await readFigures(page)).inp(typing));
  await phone.context.close();
}

// `npm run bench -w @unit/e2e -- welcome` (or `dashboard`) measures that page alone.
const only = process.argv[2];
if (only !== undefined && only !== 'welcome' && only !== 'dashboard') {
  console.error(`unknown page ${only}: name welcome or dashboard, or none for both`);
  process.exit(2);
}

let missed: string[] = [];
try {
  const figures: Figure[] = [];
  if (only !== 'dashboard') {
    for (let run = 0; run < RUNS; run++) await welcomeRun();
    figures.push(...Object.values(welcome));
  }
  if (only !== 'welcome') {
    const state = await walletWithVault(browser, server.url);
    for (let run = 0; run < RUNS; run++) await dashboardRun(state);
    figures.push(...Object.values(dashboard));
  }
  console.log('On a phone: 390 px, 4x CPU, Slow 4G (150 ms, 1.6 Mbit/s), cold cache, median of 3');
  missed = report(figures);
  // Where the welcome page's time before its first paint goes (printed, not judged).
  for (const d of welcomeDocument)
    console.log(
      `  welcome HTML: first byte ${Math.round(d.start)} ms, last ${Math.round(d.end)} ms, ` +
        `${(d.bytes / 1024).toFixed(1)} KB`,
    );
  const kb = transferred.map((b) => Math.round(b / 1024));
  if (only !== 'welcome')
    console.log(`dashboard transferred until its chart's line: ${kb.join(', ')} KB`);
} finally {
  await browser.close();
  await server.stop();
}
if (missed.length > 0) {
  console.error(`goals missed: ${missed.join('; ')}`);
  process.exit(1);
}

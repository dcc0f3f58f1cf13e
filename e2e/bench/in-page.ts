// What the bench reads inside the page, installed before the page's own scripts: paint timings
// (first contentful, largest contentful), layout shifts, interaction latencies (Event Timing: INP)
// and the moments the figures a user waits for are on screen. A moment is taken in the animation
// frame after the DOM first shows it, so it is the frame that paints it.
import type { Page } from '@playwright/test';

/** What a moment waits for, as a DOM test run after each change of the page. */
export const MOMENTS = {
  /** the welcome page's BTC price in the header */
  price: `!!document.querySelector('.price-banner strong.num')`,
  /** the dashboard's four cards with their figures: collateral, its dollars, debt, gauge, price */
  figures: `(() => {
    const ready = (id) => {
      const el = document.querySelector('[data-testid="' + id + '"]');
      return !!el && !el.querySelector('.skeleton') && el.textContent.trim() !== '';
    };
    const btc = document.querySelector('[data-testid="btc-deposited"]');
    const usd = btc && btc.nextElementSibling;
    return ready('btc-deposited') && ready('unit-debt') && ready('liquidation-price') &&
      ready('btc-price-now') && !!usd && !usd.querySelector('.skeleton') &&
      !!document.querySelector('.gauge [role="group"]');
  })()`,
  /** the ratio chart's line */
  chart: `(() => {
    const line = document.querySelector('path.chart__line');
    return !!line && (line.getAttribute('d') || '').length > 1;
  })()`,
} as const;
export type Moment = keyof typeof MOMENTS;

export interface PageFigures {
  fcp: number | null;
  lcp: number | null;
  cls: number;
  moments: Partial<Record<Moment, number>>;
  /** the longest interaction (INP over fewer than 50 interactions) started at or after `since` */
  inp(since: number): number;
}

interface Recorded {
  fcp: number | null;
  lcp: number | null;
  shifts: { startTime: number; value: number }[];
  moments: Record<string, number>;
  events: { startTime: number; duration: number; id: number }[];
}

/** Installs the observers in every document the page loads from now on. */
export async function observe(page: Page): Promise<void> {
  const tests = Object.entries(MOMENTS)
    .map(([name, test]) => `[${JSON.stringify(name)}, () => ${test}]`)
    .join(',');
  await page.addInitScript(`(() => {
    const rec = { fcp: null, lcp: null, shifts: [], moments: {}, events: [] };
    window.__bench = rec;
    const watch = (type, fn, extra) => {
      try { new PerformanceObserver((l) => l.getEntries().forEach(fn)).observe({ type, buffered: true, ...extra }); }
      catch {}
    };
    watch('paint', (e) => { if (e.name === 'first-contentful-paint') rec.fcp = e.startTime; });
    watch('largest-contentful-paint', (e) => { rec.lcp = e.startTime; });
    watch('layout-shift', (e) => { if (!e.hadRecentInput) rec.shifts.push({ startTime: e.startTime, value: e.value }); });
    watch('event', (e) => { if (e.interactionId) rec.events.push({ startTime: e.startTime, duration: e.duration, id: e.interactionId }); }, { durationThreshold: 16 });
    const tests = [${tests}];
    const check = () => {
      for (const [name, test] of tests) {
        if (rec.moments[name] !== undefined || rec.moments[name + '?'] !== undefined) continue;
        let ok = false;
        try { ok = test(); } catch {}
        if (ok) {
          rec.moments[name + '?'] = 1;
          requestAnimationFrame(() => { rec.moments[name] = performance.now(); delete rec.moments[name + '?']; });
        }
      }
    };
    new MutationObserver(check).observe(document, { childList: true, subtree: true, attributes: true, characterData: true });
  })()`);
}

/** Waits for a moment (at most `timeout` ms) and returns when it was, from navigation start. */
export async function waitForMoment(page: Page, moment: Moment, timeout = 30_000): Promise<number> {
  const handle = await page.waitForFunction(
    (name) => (window as unknown as { __bench: Recorded }).__bench.moments[name] ?? null,
    moment,
    { timeout, polling: 100 },
  );
  return (await handle.jsonValue()) as number;
}

/** CLS: the largest session window of shifts (gaps under 1 s, windows at most 5 s). */
function cumulativeShift(shifts: Recorded['shifts']): number {
  let worst = 0;
  let sum = 0;
  let first = -Infinity;
  let last = -Infinity;
  for (const s of shifts) {
    if (s.startTime - last > 1000 || s.startTime - first > 5000) {
      sum = 0;
      first = s.startTime;
    }
    sum += s.value;
    last = s.startTime;
    worst = Math.max(worst, sum);
  }
  return worst;
}

export async function readFigures(page: Page): Promise<PageFigures> {
  const rec = await page.evaluate(() => (window as unknown as { __bench: Recorded }).__bench);
  return {
    fcp: rec.fcp,
    lcp: rec.lcp,
    cls: cumulativeShift(rec.shifts),
    moments: rec.moments as PageFigures['moments'],
    inp: (since) =>
      rec.events
        .filter((e) => e.startTime >= since)
        .reduce((worst, e) => Math.max(worst, e.duration), 0),
  };
}

/** The page's clock now (ms from navigation start), to tell later interactions from earlier. */
export const pageNow = (page: Page): Promise<number> => page.evaluate(() => performance.now());

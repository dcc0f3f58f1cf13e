// A slow phone for the bench: 390 px wide, the CPU slowed 4x and DevTools' Slow 4G (150 ms round
// trip, 1.6 Mbit/s down, 750 kbit/s up), emulated through the DevTools protocol. Each context is
// new: its HTTP cache starts empty (a returning user keeps only what `storageState` carries).
import type { Browser, BrowserContext, CDPSession, Page } from '@playwright/test';

const SLOW_4G = {
  offline: false,
  latency: 150,
  downloadThroughput: (1.6 * 1024 * 1024) / 8,
  uploadThroughput: (750 * 1024) / 8,
};

export type StorageState = Awaited<ReturnType<BrowserContext['storageState']>>;

export interface PhonePage {
  context: BrowserContext;
  page: Page;
  cdp: CDPSession;
  /** bytes received over the network so far (compressed, headers included) */
  transferred(): number;
}

export async function phonePage(browser: Browser, storageState?: StorageState): Promise<PhonePage> {
  const context = await browser.newContext({
    viewport: { width: 390, height: 844 },
    deviceScaleFactor: 2,
    isMobile: true,
    hasTouch: true,
    ...(storageState ? { storageState } : {}),
  });
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  let bytes = 0;
  cdp.on('Network.loadingFinished', (event: { encodedDataLength: number }) => {
    bytes += event.encodedDataLength;
  });
  await cdp.send('Network.enable');
  await cdp.send('Network.setCacheDisabled', { cacheDisabled: true });
  await cdp.send('Network.emulateNetworkConditions', SLOW_4G);
  await cdp.send('Emulation.setCPUThrottlingRate', { rate: 4 });
  return { context, page, cdp, transferred: () => bytes };
}

export const median = (samples: number[]): number => {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
};

export interface Figure {
  name: string;
  samples: number[];
  goal: number;
  unit: 's' | 'ms' | '' | 'KB';
}

const show = (value: number, unit: Figure['unit']) =>
  unit === 's'
    ? `${(value / 1000).toFixed(2)} s`
    : unit === 'ms'
      ? `${Math.round(value)} ms`
      : unit === 'KB'
        ? `${Math.round(value / 1024)} KB`
        : value.toFixed(3);

/** Prints each figure's median beside its goal; returns the names of the goals missed. */
export function report(figures: Figure[]): string[] {
  const missed: string[] = [];
  for (const f of figures) {
    const m = median(f.samples);
    const ok = m <= f.goal;
    if (!ok) missed.push(f.name);
    console.log(
      `${f.name}: ${show(m, f.unit)} (goal ${show(f.goal, f.unit)}${ok ? '' : ': MISSED'}; ` +
        `runs ${f.samples.map((s) => show(s, f.unit)).join(', ')})`,
    );
  }
  return missed;
}

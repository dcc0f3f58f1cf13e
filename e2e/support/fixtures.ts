// Playwright fixtures: one real server per worker, devnet controls, accessibility checks and
// screenshots a person can look at afterwards (e2e/screenshots/, gitignored).
import { test as base, expect, type Page, type TestInfo } from '@playwright/test';
import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { expectNoSeriousA11yViolations } from './axe';
import { startServer, type RunningServer } from './server';

const screenshotRoot = resolve(import.meta.dirname, '../screenshots');

/** The devnet's BTC price when its server starts (START_PRICE), and where every journey starts. */
export const START_PRICE_USD = 95_000;

export interface Devnet {
  mine(blocks?: number): Promise<void>;
  setPrice(usd: number): Promise<void>;
  fund(address: string, sats: number): Promise<string>;
}

async function post(url: string, body: unknown): Promise<unknown> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`${url}: ${res.status} ${await res.text()}`);
  return res.json();
}

interface Fixtures {
  /** on a failed journey, attaches and prints what the server logged (a crash, a refusal) */
  serverLog: void;
  devnet: Devnet;
  /** Runs axe-core on the page and fails on serious or critical violations. */
  checkA11y: (page: Page) => Promise<void>;
  /** Saves a full-page screenshot under e2e/screenshots/<project>/. */
  snap: (page: Page, name: string) => Promise<void>;
}

interface WorkerFixtures {
  /**
   * Extra environment for this worker's server: a spec that needs another server (the guardian
   * network, GUARDIAN_NETWORK=local) says so with `test.use({ serverEnv: {...} })`, and Playwright
   * gives it a worker of its own.
   */
  serverEnv: Record<string, string>;
  server: RunningServer;
}

export const test = base.extend<Fixtures, WorkerFixtures>({
  serverEnv: [{}, { scope: 'worker', option: true }],
  server: [
    async ({ serverEnv }, use) => {
      const server = await startServer(serverEnv);
      await use(server);
      await server.stop();
    },
    { scope: 'worker', timeout: 150_000 },
  ],
  baseURL: async ({ server }, use) => use(server.url),
  serverLog: [
    async ({ server }, use, testInfo) => {
      const from = server.output().length;
      await use();
      if (testInfo.status === testInfo.expectedStatus) return;
      const log = server.output().slice(from) || '(the server printed nothing)';
      await testInfo.attach('server.log', { body: log, contentType: 'text/plain' });
      console.error(`--- server log during "${testInfo.title}" ---\n${log.slice(-4000)}`);
    },
    { auto: true },
  ],
  devnet: async ({ server }, use) => {
    const devnet: Devnet = {
      mine: async (blocks = 1) => void (await post(`${server.url}/api/devnet/mine`, { blocks })),
      setPrice: async (usd) => void (await post(`${server.url}/api/devnet/price`, { usd })),
      fund: async (address, sats) =>
        ((await post(`${server.url}/api/devnet/faucet`, { address, sats })) as { txid: string })
          .txid,
    };
    // Each journey starts at the devnet's start price, observed now: the worker's server never
    // ticks (PRICE_TICK), and the guardian refuses a quote whose price is over 5 minutes old, so a
    // worker past its fifth minute would otherwise fail its next vault action.
    await devnet.setPrice(START_PRICE_USD);
    await use(devnet);
  },
  checkA11y: async ({}, use) => use(expectNoSeriousA11yViolations),
  snap: async ({}, use, testInfo: TestInfo) =>
    use(async (page, name) => {
      // The screenshots are for a person to look at and no journey reads them: the test command,
      // which keeps a failed journey's own screenshot and trace, sets E2E_SCREENSHOTS=0 and skips
      // their capture and PNG encoding.
      if (process.env.E2E_SCREENSHOTS === '0') return;
      const dir = resolve(screenshotRoot, testInfo.project.name);
      mkdirSync(dir, { recursive: true });
      // At CSS pixels: a phone's device scale of 2 would make each full page four times the
      // pixels to encode (about 90 of them a run at each width), for the same layout to look at.
      await page.screenshot({ path: resolve(dir, `${name}.png`), fullPage: true, scale: 'css' });
    }),
});

export { expect };

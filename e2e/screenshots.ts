// `npm run screenshots`: regenerates docs/screenshots/, one PNG per page at 1440 and 390 px wide,
// from the real server (devnet, fresh data directory, free port) and the devnet wallet, in Debian's
// Chromium. The README's Design section shows them; they are committed on purpose, so they are taken
// at the viewport's size and a device scale of 1 to stay small.
import { chromium, type Browser, type Page } from '@playwright/test';
import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { startServer } from './support/server';

const out = resolve(import.meta.dirname, '../docs/screenshots');
const WIDTHS = [
  { name: '1440', viewport: { width: 1440, height: 900 }, mobile: false },
  { name: '390', viewport: { width: 390, height: 844 }, mobile: true },
] as const;

async function post(url: string, body: unknown): Promise<void> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`${url}: ${res.status} ${await res.text()}`);
}

async function settle(page: Page): Promise<void> {
  await page.waitForLoadState('networkidle').catch(() => undefined);
  // skeletons and the font swap
  await page.waitForTimeout(400);
}

async function shoot(page: Page, name: string, width: string): Promise<void> {
  await settle(page);
  await page.screenshot({ path: resolve(out, `${name}-${width}.png`) });
  console.log(`docs/screenshots/${name}-${width}.png`);
}

async function takeAll(browser: Browser, baseURL: string, width: (typeof WIDTHS)[number]) {
  const mine = (blocks = 1) => post(`${baseURL}/api/devnet/mine`, { blocks });
  const context = await browser.newContext({
    baseURL,
    viewport: width.viewport,
    deviceScaleFactor: 1,
    isMobile: width.mobile,
    hasTouch: width.mobile,
    reducedMotion: 'reduce',
  });
  const page = await context.newPage();
  const button = (name: string | RegExp) => page.getByRole('button', { name }).first();

  await page.goto('/');
  await button('Create Vault').waitFor();
  await shoot(page, 'welcome', width.name);

  await page.goto('/no-such-page');
  await page.getByRole('heading', { name: 'Page not found' }).waitFor();
  await shoot(page, 'not-found', width.name);

  // The devnet wallet: connect, let the faucet's payment confirm, open a vault through the drawer.
  await page.goto('/');
  await button('Connect Wallet').click();
  await page.getByRole('button', { name: 'Connect Devnet wallet' }).click();
  await page.getByText('The devnet faucet is sending you 1 BTC').waitFor();
  await shoot(page, 'funds-arriving', width.name);
  await mine();
  await button('Create Vault').click();
  await page.getByLabel('Vault name').fill('Savings');
  await button('Continue').click();
  await page.getByText(/Available: 0\.99/).waitFor();
  const amounts = page.locator('.sheet input[inputmode="decimal"]');
  await amounts.nth(0).fill('0.02');
  await amounts.nth(1).fill('600');
  await shoot(page, 'drawer-create', width.name);
  await button('Preview').click();
  await button('Confirm').click();
  await page.getByText(/Your vault is under construction/).waitFor();
  await shoot(page, 'creation-pending', width.name);
  await mine();
  await button('Go to Vault').click();
  await page.getByRole('group', { name: /^Collateral ratio / }).waitFor();
  await mine();
  await shoot(page, 'dashboard', width.name);

  await button(/^Deposit$/).click();
  await page.getByRole('dialog').getByRole('heading', { name: 'Deposit' }).waitFor();
  await page.getByRole('textbox', { name: 'Deposit amount' }).fill('0.01');
  await shoot(page, 'drawer-deposit', width.name);
  await page.keyboard.press('Escape');

  await button(/^Wallet tb1q/).click();
  await page.getByRole('dialog', { name: 'Devnet wallet' }).waitFor();
  await button('Export key').click();
  await shoot(page, 'wallet-menu', width.name);
  await page.keyboard.press('Escape');

  await page.goto('/missions');
  await page.getByRole('heading', { level: 1 }).first().waitFor();
  await shoot(page, 'missions', width.name);

  await page.goto('/liquidations');
  await page.getByRole('heading', { level: 1 }).first().waitFor();
  await shoot(page, 'liquidations', width.name);

  await context.close();
}

async function main() {
  mkdirSync(out, { recursive: true });
  const server = await startServer();
  const browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu'],
  });
  try {
    for (const width of WIDTHS) await takeAll(browser, server.url, width);
  } catch (error) {
    console.error(server.output().slice(-4000));
    throw error;
  } finally {
    await browser.close();
    await server.stop();
  }
}

await main();

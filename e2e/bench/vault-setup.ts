// A returning user for the dashboard's figures: a devnet wallet with an open vault, made once at
// full speed through the visible UI (connect, faucet, create drawer, one block), then handed to
// each measured run as the browser's stored state (its localStorage and cookies, no HTTP cache).
import type { Browser } from '@playwright/test';
import type { StorageState } from './phone';

const FUNDED_KEY = 'unit.wallet.devnet-funded';

async function post(url: string, body: unknown): Promise<void> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`${url}: ${res.status} ${await res.text()}`);
}

export async function walletWithVault(browser: Browser, url: string): Promise<StorageState> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  page.setDefaultTimeout(60_000);
  const mine = () => post(`${url}/api/devnet/mine`, { blocks: 1 });
  try {
    await page.goto(`${url}/`);
    await page.getByRole('button', { name: 'Connect Wallet' }).first().click();
    await page.getByRole('button', { name: 'Connect Devnet wallet' }).click();
    await page.waitForFunction((key) => window.localStorage.getItem(key) === '1', FUNDED_KEY);
    await mine();
    await page.reload();
    await page.getByRole('button', { name: 'Create Vault' }).first().click();
    await page.getByLabel('Vault name').fill('Bench vault');
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByText(/Available: 0\.99/).waitFor();
    const amounts = page.locator('.sheet input[inputmode="decimal"]');
    await amounts.nth(0).fill('0.1');
    await amounts.nth(1).fill('2000');
    await page.getByRole('button', { name: 'Preview' }).click();
    await page.getByRole('button', { name: 'Confirm' }).click();
    await page
      .getByRole('link', { name: /^View transaction/ })
      .first()
      .waitFor();
    await mine();
    await page.getByRole('button', { name: 'Go to Vault' }).click();
    await page.getByRole('group', { name: /^Collateral ratio / }).waitFor();
    return await context.storageState();
  } finally {
    await context.close();
  }
}

// Steps several journeys share, written the way a user takes them: through the visible UI only.
import type { Page } from '@playwright/test';
import { expect, type Devnet } from './fixtures';

/** Set by the devnet wallet once the faucet has paid it (apps/web/src/wallet). */
export const FUNDED_KEY = 'unit.wallet.devnet-funded';

/** Connects the devnet wallet from the welcome screen and waits for its faucet payment to confirm. */
export async function connectDevnetWallet(page: Page, devnet: Devnet): Promise<void> {
  await page.goto('/');
  await page.getByRole('button', { name: 'Connect Wallet' }).first().click();
  await page.getByRole('button', { name: 'Connect Devnet wallet' }).click();
  await expect
    .poll(() => page.evaluate((key) => window.localStorage.getItem(key), FUNDED_KEY))
    .toBe('1');
  await devnet.mine(1);
  await page.reload();
}

export const UNDER_CONSTRUCTION =
  'Your vault is under construction. Almost there! This might take about 10 minutes.';

/**
 * After Confirm: the creation screen waits for the block (SPEC §2 Creation pending) with a link to
 * the broadcast transaction; one block later the vault exists and the success state shows.
 */
export async function confirmCreation(page: Page, devnet: Devnet): Promise<void> {
  await expect(page.getByText(UNDER_CONSTRUCTION)).toBeVisible();
  // The tracker and the creation screen behind it may both link the transaction.
  await expect(page.getByRole('link', { name: /^View transaction/ }).first()).toBeVisible();
  await devnet.mine(1);
  await expect(page.getByRole('heading', { name: 'Vault Successfully Created!' })).toBeVisible();
}

/** Opens a vault through the create drawer and lands on its dashboard once a block confirms it. */
export async function openVault(
  page: Page,
  devnet: Devnet,
  { name, btc, unit }: { name: string; btc: string; unit: string },
): Promise<void> {
  await page.getByRole('button', { name: 'Create Vault' }).first().click();
  await page.getByLabel('Vault name').fill(name);
  await page.getByRole('button', { name: 'Continue' }).click();
  const amounts = page.locator('.sheet input[inputmode="decimal"]');
  await expect(page.getByText(/Available: 0\.99/)).toBeVisible();
  await amounts.nth(0).fill(btc);
  await amounts.nth(1).fill(unit);
  await page.getByRole('button', { name: 'Preview' }).click();
  await page.getByRole('button', { name: 'Confirm' }).click();
  await confirmCreation(page, devnet);
  await page.getByRole('button', { name: 'Go to Vault' }).click();
  await expect(page.getByRole('group', { name: /^Collateral ratio / })).toBeVisible();
}

/** Opens an action drawer from the dashboard card button. */
export async function openDrawer(page: Page, action: string) {
  await page.getByRole('button', { name: action, exact: true }).first().click();
  const drawer = page.getByRole('dialog');
  await expect(drawer.getByRole('heading', { name: action })).toBeVisible();
  return drawer;
}

/** Sends a deposit from the dashboard's drawer and waits for its submitted banner. */
export async function submitDeposit(page: Page, btc: string): Promise<void> {
  const drawer = await openDrawer(page, 'Deposit');
  await drawer.locator('input[inputmode="decimal"]').first().fill(btc);
  await drawer.getByRole('button', { name: 'Deposit', exact: true }).click();
  await expect(page.getByText('BTC Deposit Submitted').first()).toBeVisible();
}

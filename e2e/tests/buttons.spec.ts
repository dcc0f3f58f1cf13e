// Journey 3 (dashboard buttons): SPEC §4 Button enablement. A disabled action says why, as its
// accessible description and as a tooltip on hover or focus (apps/web/src/ui/ReasonButton.tsx).
import type { Page } from '@playwright/test';
import { test, expect } from '../support/fixtures';
import { confirmCreation, connectDevnetWallet, openDrawer, openVault } from '../support/journey';

// BUTTON_REASONS of packages/protocol/src/buttons.ts.
const PENDING = 'A transaction is pending. Please wait until it completes.';
const NO_DEBT = 'You have no UNIT debt to repay.';
const NO_WALLET_SATS = 'There is no bitcoin in your wallet.';

const ACTIONS = ['Deposit', 'Withdraw', 'Borrow', 'Repay'] as const;

const actionButton = (page: Page, name: string) =>
  page.getByRole('button', { name, exact: true }).first();

/** The button is disabled and says why; focusing it (through its wrapper) shows the tooltip. */
async function expectDisabledBecause(page: Page, name: string, reason: string | RegExp) {
  const button = actionButton(page, name);
  await expect(button).toBeDisabled();
  await expect(button).toHaveAccessibleDescription(reason);
}

/**
 * Shows the reason's tooltip: hovering with a mouse on desktop, a tap on the phone. A disabled
 * button takes no pointer or focus, so the tooltip hangs on its focusable wrapper.
 */
async function showReason(page: Page, name: string, reason: string) {
  const wrapper = actionButton(page, name).locator('xpath=..');
  if (test.info().project.name.startsWith('phone')) await wrapper.tap();
  else await wrapper.hover();
  await expect(page.locator('.tooltip').filter({ hasText: reason }).first()).toBeVisible();
}

test('a pending transaction disables every action, and a repaid vault explains Repay', async ({
  page,
  devnet,
  checkA11y,
  snap,
}) => {
  await connectDevnetWallet(page, devnet);
  await openVault(page, devnet, { name: 'Buttons', btc: '0.02', unit: '300' });
  for (const name of ACTIONS) await expect(actionButton(page, name)).toBeEnabled();

  // Repay the whole debt: Max is the smaller of the UNIT in the wallet and the debt.
  const drawer = await openDrawer(page, 'Repay');
  await expect(drawer.getByText('Up to 300.00 UNIT')).toBeVisible({ timeout: 30_000 });
  await drawer.getByRole('button', { name: 'Max' }).click();
  await expect(drawer.getByRole('textbox', { name: 'Repay amount' })).toHaveValue('300.00');
  await drawer.getByRole('button', { name: 'Repay', exact: true }).click();
  await expect(page.getByText('UNIT Repayment Submitted').first()).toBeVisible();
  await expect(page.getByText('Finalizing...').first()).toBeVisible();

  // Before a block confirms it, the repayment is pending: all four actions wait.
  for (const name of ACTIONS) await expectDisabledBecause(page, name, PENDING);
  await showReason(page, 'Deposit', PENDING);
  await snap(page, '56-pending-buttons');
  await checkA11y(page);

  await devnet.mine(1);
  await expect(page.getByText('Finalizing...')).toHaveCount(0, { timeout: 60_000 });
  await expect(page.getByTestId('unit-debt')).toHaveText(/^0(\.00)? UNIT$/, { timeout: 30_000 });
  await expectDisabledBecause(page, 'Repay', NO_DEBT);
  for (const name of ['Deposit', 'Withdraw', 'Borrow'])
    await expect(actionButton(page, name)).toBeEnabled();
  await showReason(page, 'Repay', NO_DEBT);
  await snap(page, '57-repaid-repay-disabled');
  await checkA11y(page);
});

test('a wallet a Max vault opening emptied cannot deposit', async ({
  page,
  devnet,
  checkA11y,
  snap,
}) => {
  await connectDevnetWallet(page, devnet);
  await page.getByRole('button', { name: 'Create Vault' }).first().click();
  await page.getByLabel('Vault name').fill('Everything');
  await page.getByRole('button', { name: 'Continue' }).click();
  await expect(page.getByText(/Available: 0\.99/)).toBeVisible();
  const drawer = page.getByRole('dialog');
  await drawer.getByRole('button', { name: 'Max' }).first().click();
  // The refined maximum: the whole 1 BTC less the UNIT postage and the fee, no change left.
  await expect(drawer.getByRole('textbox', { name: 'Deposit BTC' })).toHaveValue(/^0\.9998\d+$/);
  await drawer.getByRole('textbox', { name: 'Borrow UNIT' }).fill('300');
  await page.getByRole('button', { name: 'Preview' }).click();
  await page.getByRole('button', { name: 'Confirm' }).click();
  await confirmCreation(page, devnet);
  await page.getByRole('button', { name: 'Go to Vault' }).click();
  await expect(page.getByRole('group', { name: /^Collateral ratio / })).toBeVisible();
  // The wallet's balance is read again on the next visit (SPEC §7: stale after 60 s).
  await page.reload();
  await expect(page.getByRole('group', { name: /^Collateral ratio / })).toBeVisible();

  await expectDisabledBecause(page, 'Deposit', NO_WALLET_SATS);
  // Borrow and Repay need the wallet to pay the network fee (SPEC §5).
  const cost = /^The transaction costs .+, but you only have 0 .+ in your wallet$/;
  await expectDisabledBecause(page, 'Borrow', cost);
  await expectDisabledBecause(page, 'Repay', cost);
  await showReason(page, 'Deposit', NO_WALLET_SATS);
  await snap(page, '58-no-sats-deposit-disabled');
  await checkA11y(page);
});

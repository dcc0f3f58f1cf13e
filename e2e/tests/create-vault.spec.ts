// Journey 1: a new user meets the app, connects the devnet wallet, funds it, and opens a vault
// through the real guardian on the real devnet.
import { test, expect } from '../support/fixtures';
import { UNDER_CONSTRUCTION } from '../support/journey';

/** Set by the devnet wallet once the faucet has paid it (apps/web/src/wallet). */
const FUNDED_KEY = 'unit.wallet.devnet-funded';

test('a new user opens a vault with the devnet wallet', async ({
  page,
  devnet,
  checkA11y,
  snap,
}) => {
  await page.goto('/');
  await expect(page.getByRole('heading', { level: 1 })).toBeVisible();
  await expect(page.getByRole('button', { name: 'Create Vault' }).first()).toBeVisible();
  await checkA11y(page);
  await snap(page, '01-welcome');

  await page.getByRole('button', { name: 'Connect Wallet' }).first().click();
  await expect(page.getByText('Select your preffered wallet to open a vault.')).toBeVisible();
  await checkA11y(page);
  await snap(page, '02-wallet-picker');
  await page.getByRole('button', { name: 'Connect Devnet wallet' }).click();
  // The devnet wallet funds itself from the faucet on first use: the picker closes and the page
  // says the faucet is paying until a block confirms it; meanwhile the create drawer says the funds
  // are arriving rather than 'Available: 0 BTC'.
  await expect(page.getByRole('button', { name: 'Connect Devnet wallet' })).toBeHidden();
  await expect(page.getByText('The devnet faucet is sending you 1 BTC')).toBeVisible();
  // The picker's overlay fades out over the header: measure contrast once it is gone.
  await expect(page.getByRole('dialog')).toHaveCount(0);
  await checkA11y(page);
  await page.getByRole('button', { name: 'Create Vault' }).first().click();
  await page.getByLabel('Vault name').fill('Early');
  await page.getByRole('button', { name: 'Continue' }).click();
  await expect(page.locator('.sheet').getByText('Funds arriving…')).toBeVisible();
  await expect(page.getByText(/^Available: 0 BTC/)).toBeHidden();
  await page.keyboard.press('Escape');
  await expect
    .poll(() => page.evaluate((key) => window.localStorage.getItem(key), FUNDED_KEY))
    .toBe('1');
  await devnet.mine(1);
  await page.reload();

  // The wallet menu: the address, what the wallet holds, and the faucet's Fund for one more BTC.
  await page.getByRole('button', { name: /^Wallet tb1q/ }).click();
  const menu = page.getByRole('dialog', { name: 'Devnet wallet' });
  await expect(menu.getByText('1 BTC', { exact: true })).toBeVisible();
  await menu.getByRole('button', { name: 'Fund' }).click();
  await expect(menu.getByText('1 BTC is on its way from the devnet faucet.')).toBeVisible();
  await checkA11y(page);
  await snap(page, '02-wallet-menu');
  await menu.getByRole('button', { name: 'Close' }).click();
  await devnet.mine(1);

  await page.getByRole('button', { name: 'Create Vault' }).first().click();
  const name = page.getByLabel('Vault name');
  await name.fill('A name of twenty-one!');
  await expect(page.getByText('Use a maximum of 20 characters.')).toBeVisible();
  await name.fill('Savings');
  await page.getByRole('button', { name: 'Continue' }).click();

  const amounts = page.locator('.sheet input[inputmode="decimal"]');
  // Two faucet payments, less the fee of this opening: just under 2 BTC.
  await expect(page.getByText(/Available: 1\.99/)).toBeVisible({ timeout: 60_000 });
  await amounts.nth(0).fill('0.01');
  await amounts.nth(1).fill('300');
  await checkA11y(page);
  await snap(page, '03-create-amounts');
  await page.getByRole('button', { name: 'Preview' }).click();
  await expect(page.getByText('Confirmation')).toBeVisible();
  await expect(page.getByText('$40,500.00')).toBeVisible();
  await checkA11y(page);
  await page.getByRole('button', { name: 'Confirm' }).click();

  // Broadcast, not yet mined: the creation screen waits for the block, links the transaction and
  // offers Telegram; the tracker stays reachable while the flow runs.
  await expect(page.getByText(UNDER_CONSTRUCTION)).toBeVisible();
  await expect(page.getByRole('link', { name: /^View transaction/ })).toBeVisible();
  await checkA11y(page);
  await snap(page, '04-under-construction');
  await devnet.mine(1);
  await expect(page.getByRole('heading', { name: 'Vault Successfully Created!' })).toBeVisible();
  await checkA11y(page);
  await snap(page, '04-created');
  await page.getByRole('button', { name: 'Go to Vault' }).click();
  // The dashboard shows what the chain holds: 0.01 BTC locked, 300 UNIT owed.
  await expect(page.getByText('0.01 BTC').first()).toBeVisible();
  await expect(page.getByText(/300(\.00)? UNIT/).first()).toBeVisible();
  await expect(page.getByText('$40,500.00').first()).toBeVisible();
  // 0.01 BTC x 95,000 USD / 300 UNIT = 316.7%, rounded to 317: the Healthy band.
  await expect(page.getByRole('group', { name: 'Collateral ratio 317%, Healthy' })).toBeVisible();
  // The UNIT issued by the open transaction sits in the wallet's runes address.
  await expect(page.getByText('In wallet: 300.00 UNIT')).toBeVisible();
  await checkA11y(page);
  await snap(page, '05-dashboard');
  // The gauge's 'You are here!' on the vault's own band neither wraps nor grows the card.
  const gauge = page.locator('section.gauge');
  const before = await gauge.boundingBox();
  await gauge.locator('path[data-band="healthy"]').hover();
  const here = gauge.locator('.gauge__subtitle').getByText('You are here!');
  await expect(here).toBeVisible();
  const line = await here.boundingBox();
  expect(line!.height).toBeLessThan(30);
  expect((await gauge.boundingBox())!.height).toBe(before!.height);

  // SPEC §2: /?action=deposit opens the deposit drawer, then the URL returns to /.
  await page.goto('/?action=deposit');
  const drawer = page.getByRole('dialog');
  await expect(drawer.getByRole('heading', { name: 'Deposit' })).toBeVisible();
  await expect(page).toHaveURL(/\/$/);
  await drawer.locator('input[inputmode="decimal"]').first().fill('0.005');
  await checkA11y(page);
  await snap(page, '06-deposit-form');
  await drawer.getByRole('button', { name: 'Deposit', exact: true }).click();
  await expect(page.getByText('BTC Deposit Submitted').first()).toBeVisible();
  await expect(page.getByText('Finalizing...').first()).toBeVisible();
  await checkA11y(page);
  await snap(page, '07-deposit-pending');
  // One block later the vault's history holds the deposit and the pending entry completes.
  await devnet.mine(1);
  await expect(page.getByText('0.015 BTC').first()).toBeVisible({ timeout: 60_000 });
  await expect(page.getByText('Finalizing...')).toHaveCount(0, { timeout: 60_000 });
  // SPEC §2: the status column is hidden on narrow widths.
  const depositRow = test.info().project.name.startsWith('phone')
    ? /Deposit BTC/
    : /Deposit BTC.*Completed/;
  await expect(page.getByRole('row', { name: depositRow })).toBeVisible();
  await checkA11y(page);
  await snap(page, '08-deposit-confirmed');

  // One wallet, one vault: a create-vault link opens no second one, and says so.
  await page.goto('/?action=create-vault');
  await expect(page.getByText('You already have a vault')).toBeVisible();
  await expect(page).toHaveURL(/\/$/);
  await expect(page.getByRole('dialog')).toHaveCount(0);
  await expect(page.getByRole('group', { name: /^Collateral ratio / })).toBeVisible();
});

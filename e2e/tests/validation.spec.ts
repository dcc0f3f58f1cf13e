// Journey 3 (create drawer part): the amount rules of SPEC §5 as a user meets them.
import { test, expect } from '../support/fixtures';

test('the create drawer explains every refused amount', async ({
  page,
  devnet,
  checkA11y,
  snap,
}) => {
  await page.goto('/');
  await page.getByRole('button', { name: 'Connect Wallet' }).first().click();
  await page.getByRole('button', { name: 'Connect Devnet wallet' }).click();
  await expect
    .poll(() => page.evaluate(() => window.localStorage.getItem('unit.wallet.devnet-funded')))
    .toBe('1');
  await devnet.mine(1);
  await page.reload();

  await page.getByRole('button', { name: 'Create Vault' }).first().click();
  await page.getByLabel('Vault name').fill('Checks');
  await page.getByRole('button', { name: 'Continue' }).click();
  const btc = page.locator('.sheet input[inputmode="decimal"]').nth(0);
  await expect(page.getByText(/Available: 0\.99/)).toBeVisible();

  // Below the minimum accepted amount.
  await btc.fill('0.00001');
  await expect(page.getByText('The lowest accepted amount is 0.00005 BTC')).toBeVisible();
  await expect(page.getByRole('button', { name: 'Preview' })).toBeDisabled();
  await snap(page, '10-below-minimum');

  // BTC takes at most 8 decimals: the ninth is not accepted.
  await btc.fill('');
  await btc.pressSequentially('0.123456789');
  await expect(btc).toHaveValue('0.12345678');

  // Above the balance.
  await btc.fill('5');
  await expect(page.getByText('Not Enough Bitcoin')).toBeVisible();
  // The borrow limit follows what the wallet can deposit (under 1 BTC: under 59,375 UNIT).
  await expect(page.getByText(/Up to 59,3\d\d\.\d\d UNIT/)).toBeVisible();
  await expect(page.getByRole('button', { name: 'Preview' })).toBeDisabled();
  await snap(page, '11-above-balance');
  await checkA11y(page);

  // SPEC §5: a UNIT amount past the 160% limit of 0.01 BTC at 95,000 USD is clamped to it.
  await btc.fill('0.01');
  const unit = page.getByRole('textbox', { name: 'Borrow UNIT' });
  await unit.fill('1000');
  await expect(unit).toHaveValue('593.75');
  await expect(page.getByText('Up to 593.75 UNIT')).toBeVisible();
  await expect(page.getByText(/N\/A → 160%/)).toBeVisible();
  await snap(page, '12-borrow-over-limit');
});

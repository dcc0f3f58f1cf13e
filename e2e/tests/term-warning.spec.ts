// The devnet's term is 40 blocks: once a vault is 4 blocks from it (30 days of a year's term,
// scaled) its owner reads what the guardians do at the term and that any action renews it; a
// deposit writes a new term and the warning goes.
import { test, expect } from '../support/fixtures';
import { connectDevnetWallet, openDrawer, openVault } from '../support/journey';

test('the owner is warned before the term, and an action renews it', async ({
  page,
  devnet,
  checkA11y,
  snap,
}) => {
  await connectDevnetWallet(page, devnet);
  await openVault(page, devnet, { name: 'Termed', btc: '0.02', unit: '300' });
  const banner = page.getByTestId('term-warning');
  await expect(page.getByRole('button', { name: 'Deposit', exact: true })).toBeEnabled();
  await expect(banner).toHaveCount(0);

  // The opening was quoted at a tip h (term h + 41) and mined at h + 1: 36 more leave 4 blocks.
  await devnet.mine(36);
  await expect(banner).toBeVisible({ timeout: 30_000 });
  await expect(banner).toContainText('Your vault reaches its term within 30 days');
  await expect(banner).toContainText(
    'the guardians settle a vault that has had no action: its debt is repaid from its collateral',
  );
  await expect(banner).toContainText('Any action on the vault');
  await checkA11y(page);
  await snap(page, '70-term-warning');

  // A deposit writes a new vault output with a new term: no warning once it is in a block.
  const drawer = await openDrawer(page, 'Deposit');
  await drawer.getByRole('textbox', { name: 'Deposit amount' }).fill('0.001');
  await drawer.getByRole('button', { name: 'Deposit', exact: true }).click();
  await expect(page.getByText('BTC Deposit Submitted').first()).toBeVisible();
  await devnet.mine(1);
  await expect(page.getByText('Finalizing...')).toHaveCount(0, { timeout: 60_000 });
  await expect(banner).toHaveCount(0, { timeout: 30_000 });
});

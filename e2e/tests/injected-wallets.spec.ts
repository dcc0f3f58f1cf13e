// Journey 4: the extensions people really use. Unisat-, Xverse- and Leather-shaped providers are
// injected before the app loads (the real API shapes, signing with real keys: e2e/support/wallets);
// each connects through the wallet picker, opens a vault and deposits through the real guardian on
// the devnet. Xverse and Leather keep UNIT on their own Taproot key; Unisat on its one address.
import { test, expect } from '../support/fixtures';
import { injectWallet, type InjectedWalletKind } from '../support/wallets/inject';
import { confirmCreation } from '../support/journey';

const ONE_BTC = 100_000_000;

const wallets: Array<{ kind: InjectedWalletKind; name: string; reconnectsSilently: boolean }> = [
  { kind: 'unisat', name: 'Unisat', reconnectsSilently: true },
  { kind: 'xverse', name: 'Xverse', reconnectsSilently: true },
  // Leather opens its popup for every request, getAddresses too: no silent way back after a reload.
  { kind: 'leather', name: 'Leather', reconnectsSilently: false },
];

for (const { kind, name, reconnectsSilently } of wallets) {
  test(`a ${name} user opens a vault and deposits through the ${name} extension`, async ({
    page,
    devnet,
    checkA11y,
    snap,
  }) => {
    const wallet = await injectWallet(page, kind);
    // The wallet holds confirmed coins before the app first asks for its balance.
    await devnet.fund(wallet.satsAddress, ONE_BTC);
    await devnet.mine(1);

    await page.goto('/');
    await page.getByRole('button', { name: 'Connect Wallet' }).first().click();
    await expect(page.getByText('Select your preffered wallet to open a vault.')).toBeVisible();
    // SPEC §2: an installed wallet is offered to connect, not to download.
    await expect(page.getByRole('link', { name: `Get ${name}` })).toBeHidden();
    await checkA11y(page);
    await snap(page, `20-${kind}-picker`);
    await page.getByRole('button', { name: `Connect ${name}` }).click();
    // The picker closes once the extension has shared its account.
    await expect(page.getByText('Select your preffered wallet to open a vault.')).toBeHidden();

    await page.getByRole('button', { name: 'Create Vault' }).first().click();
    await page.getByLabel('Vault name').fill(`${name} vault`);
    await page.getByRole('button', { name: 'Continue' }).click();
    const amounts = page.locator('.sheet input[inputmode="decimal"]');
    await expect(page.getByText(/Available: 0\.99/)).toBeVisible();
    await amounts.nth(0).fill('0.01');
    await amounts.nth(1).fill('300');
    await page.getByRole('button', { name: 'Preview' }).click();
    await expect(page.getByText('Confirmation')).toBeVisible();
    await checkA11y(page);
    await snap(page, `21-${kind}-create-confirm`);
    // The extension signs the open transaction's payment inputs.
    await page.getByRole('button', { name: 'Confirm' }).click();
    await confirmCreation(page, devnet);
    await page.getByRole('button', { name: 'Go to Vault' }).click();

    await expect(page.getByText('0.01 BTC').first()).toBeVisible();
    await expect(page.getByText(/300(\.00)? UNIT/).first()).toBeVisible();
    // The issued UNIT reached the wallet's runes address (Xverse: the ordinals account).
    await expect(page.getByText('In wallet: 300.00 UNIT')).toBeVisible();
    await checkA11y(page);
    await snap(page, `22-${kind}-dashboard`);
    // Like the real extension, the injected one remembers this site: a reload reconnects silently.
    // Leather asks again, so its user connects once more through the picker.
    await page.reload();
    if (!reconnectsSilently) {
      await page.getByRole('button', { name: 'Connect Wallet' }).first().click();
      await page.getByRole('button', { name: `Connect ${name}` }).click();
    }
    await expect(page.getByText('In wallet: 300.00 UNIT')).toBeVisible();

    // SPEC §2 drawers: the Deposit button opens the deposit form.
    await page.getByRole('button', { name: 'Deposit', exact: true }).first().click();
    const drawer = page.getByRole('dialog');
    await expect(drawer.getByRole('heading', { name: 'Deposit' })).toBeVisible();
    await drawer.locator('input[inputmode="decimal"]').first().fill('0.005');
    await checkA11y(page);
    await snap(page, `23-${kind}-deposit-form`);
    // The extension signs the vault's update leaf and its payment inputs.
    await drawer.getByRole('button', { name: 'Deposit', exact: true }).click();
    await expect(page.getByText('BTC Deposit Submitted').first()).toBeVisible();
    // SPEC §4: 'In Progress' is shown as 'Finalizing...' until the vault history holds it.
    await expect(page.getByText('Finalizing...').first()).toBeVisible();
    await checkA11y(page);
    await snap(page, `24-${kind}-deposit-pending`);

    await devnet.mine(1);
    await expect(page.getByText('0.015 BTC').first()).toBeVisible({ timeout: 60_000 });
    await expect(page.getByText('Finalizing...')).toHaveCount(0, { timeout: 60_000 });
    await expect(page.getByRole('status').filter({ hasText: 'Completed' })).toBeVisible();
    await checkA11y(page);
    await snap(page, `25-${kind}-deposit-completed`);
  });
}

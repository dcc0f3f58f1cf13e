// Journey 3: the amount rules of SPEC §5 as a user meets them, in the create drawer and the action
// drawers, and Max refined from the wallet's UTXOs so a deposit takes everything the wallet can pay.
import type { Locator, Page } from '@playwright/test';
import { test, expect } from '../support/fixtures';
import { connectDevnetWallet, openDrawer, openVault } from '../support/journey';

/** SPEC §9 / CONSTANTS.md: the dust limit. */
const DUST_LIMIT_SATS = 546;
/** The UNIT postage a vault opening pays to the runes address. */
const POSTAGE_SATS = 10_000;

/** Sats of a BTC amount as the app writes it (up to 8 decimals), exactly. */
function btcToSats(text: string): number {
  const [int = '0', frac = ''] = text.replace(/,/g, '').split('.');
  return Number(int) * 100_000_000 + Number(frac.padEnd(8, '0'));
}

/** The drawer's 'Available: … BTC' maximum, in sats. */
async function availableSats(drawer: Locator): Promise<number> {
  const text = await drawer.getByText(/^Available: /).textContent();
  return btcToSats(/Available: ([\d.,]+) BTC/.exec(text ?? '')![1]!);
}

/** The rate of the selected (default Fast) fee option, sat/vB. */
async function feeRate(drawer: Locator): Promise<number> {
  const text = await drawer.locator('label', { hasText: 'Fast ~10 min' }).textContent();
  return Number(/(\d+(?:\.\d+)?) sat\/vB/.exec(text ?? '')![1]);
}

/**
 * Presses the BTC field's Max and returns the sats address whose UTXOs the drawer asked for (SPEC §5:
 * a max deposit is refined using the wallet's UTXOs).
 */
async function pressMax(page: Page, drawer: Locator): Promise<string> {
  const utxos = page.waitForRequest(/\/ordinals\/address\/[^/]+\/utxos$/);
  await drawer.getByRole('button', { name: 'Max' }).first().click();
  return decodeURIComponent(/\/address\/([^/]+)\/utxos$/.exec((await utxos).url())![1]!);
}

async function getJson<T>(url: string): Promise<T> {
  const res = await fetch(url);
  expect(res.ok, url).toBe(true);
  return (await res.json()) as T;
}

/** What the wallet can spend: the sum of its payment UTXOs (the ordinals service). */
async function utxoSum(baseURL: string, address: string): Promise<number> {
  const utxos = await getJson<{ value: number }[]>(`${baseURL}/ordinals/address/${address}/utxos`);
  return utxos.reduce((sum, u) => sum + u.value, 0);
}

/** SPEC §7: the confirmed balance, funded minus spent of chain_stats. */
async function chainBalance(baseURL: string, address: string): Promise<number> {
  const stats = await getJson<{ chain_stats: { funded_txo_sum: number; spent_txo_sum: number } }>(
    `${baseURL}/esplora/address/${address}`,
  );
  return stats.chain_stats.funded_txo_sum - stats.chain_stats.spent_txo_sum;
}

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
  await checkA11y(page);
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
  await checkA11y(page);
  await snap(page, '12-borrow-over-limit');
});

test('an action drawer refuses what the wallet cannot pay, clamps a borrow to 160%, and Max deposits everything', async ({
  page,
  devnet,
  baseURL,
  checkA11y,
  snap,
}) => {
  await connectDevnetWallet(page, devnet);
  await openVault(page, devnet, { name: 'Limits', btc: '0.02', unit: '300' });

  // Deposit: above the balance, and a ninth decimal.
  let drawer = await openDrawer(page, 'Deposit');
  const deposit = drawer.getByRole('textbox', { name: 'Deposit amount' });
  await expect(drawer.getByText(/^Available: 0\.97/)).toBeVisible();
  await deposit.fill('5');
  await expect(drawer.getByText('Not Enough Bitcoin')).toBeVisible();
  await expect(drawer.getByRole('button', { name: 'Deposit', exact: true })).toBeDisabled();
  await snap(page, '50-deposit-above-balance');
  await checkA11y(page);
  await deposit.fill('');
  await deposit.pressSequentially('0.123456789');
  await expect(deposit).toHaveValue('0.12345678');
  await expect(drawer.getByRole('button', { name: 'Deposit', exact: true })).toBeEnabled();
  await drawer.getByRole('button', { name: 'Cancel' }).click();
  await expect(drawer).toBeHidden();

  // Borrow: UNIT takes two decimals; past the 160% limit SPEC §5's message shows and the amount is
  // clamped to the limit.
  drawer = await openDrawer(page, 'Borrow');
  const borrow = drawer.getByRole('textbox', { name: 'Borrow amount' });
  await borrow.pressSequentially('12.345');
  await expect(borrow).toHaveValue('12.34');
  // 0.02 BTC x 95,000 USD / 1.6 = 1,187.50 UNIT of capacity, 300 of it borrowed.
  await expect(drawer.getByText('Up to 887.50 UNIT')).toBeVisible();
  await borrow.fill('100000');
  await expect(borrow).toHaveValue('887.50');
  await expect(drawer.getByText('Maximum value cannot exceed 887.50 UNIT')).toBeVisible();
  await expect(drawer.getByRole('button', { name: 'Borrow', exact: true })).toBeEnabled();
  await snap(page, '51-borrow-clamped');
  await checkA11y(page);
  await drawer.getByRole('button', { name: 'Cancel' }).click();
  await expect(drawer).toBeHidden();

  // Max: the estimate (balance less a quoted cost) becomes the amount the wallet's UTXOs can pay,
  // with no change and the fee of exactly that transaction.
  drawer = await openDrawer(page, 'Deposit');
  await expect(drawer.getByText(/^Available: 0\.97/)).toBeVisible();
  const estimate = await availableSats(drawer);
  const rate = await feeRate(drawer);
  const address = await pressMax(page, drawer);
  const amount = drawer.getByRole('textbox', { name: 'Deposit amount' });
  await expect(amount).not.toHaveValue('');
  const max = btcToSats(await amount.inputValue());
  expect(await availableSats(drawer)).toBe(max);
  expect(max).toBeGreaterThan(estimate);
  // The rest is the fee: vault, one payment input -> vault, state record with the vault's term
  // (40 bytes) is about 352 vB.
  const fee = (await utxoSum(baseURL!, address)) - max;
  expect(fee).toBeGreaterThanOrEqual(300 * rate);
  expect(fee).toBeLessThanOrEqual(400 * rate);
  await snap(page, '52-deposit-max');
  await checkA11y(page);

  await drawer.getByRole('button', { name: 'Deposit', exact: true }).click();
  await expect(page.getByText('BTC Deposit Submitted').first()).toBeVisible();
  await expect(page.getByText('Finalizing...').first()).toBeVisible();
  await devnet.mine(1);
  await expect(page.getByText('Finalizing...')).toHaveCount(0, { timeout: 60_000 });
  // Nothing worth a change output is left behind.
  expect(await chainBalance(baseURL!, address)).toBeLessThan(DUST_LIMIT_SATS);
  await checkA11y(page);
  await snap(page, '53-deposit-max-done');
});

test('Max in the create drawer takes everything the wallet can open a vault with', async ({
  page,
  devnet,
  baseURL,
  checkA11y,
  snap,
}) => {
  await connectDevnetWallet(page, devnet);
  await page.getByRole('button', { name: 'Create Vault' }).first().click();
  await page.getByLabel('Vault name').fill('All in');
  await page.getByRole('button', { name: 'Continue' }).click();
  const drawer = page.getByRole('dialog');
  await expect(drawer.getByText(/^Available: 0\.99/)).toBeVisible();
  // SPEC §5: the estimate is the balance less the quoted cost and the dust limit.
  const estimate = await availableSats(drawer);
  const rate = await feeRate(drawer);
  const address = await pressMax(page, drawer);
  const btc = drawer.getByRole('textbox', { name: 'Deposit BTC' });
  await expect(btc).not.toHaveValue('');
  const maxText = await btc.inputValue();
  const max = btcToSats(maxText);
  expect(await availableSats(drawer)).toBe(max);
  expect(max).toBeGreaterThan(estimate);
  // The UNIT postage comes out too; the rest is the fee of the opening (about 400 vB with the
  // term its record carries).
  const fee = (await utxoSum(baseURL!, address)) - POSTAGE_SATS - max;
  expect(fee).toBeGreaterThanOrEqual(300 * rate);
  expect(fee).toBeLessThanOrEqual(450 * rate);

  await drawer.getByRole('textbox', { name: 'Borrow UNIT' }).fill('300');
  await snap(page, '54-create-max');
  await checkA11y(page);
  await page.getByRole('button', { name: 'Preview' }).click();
  // The confirmation shows the same deposit.
  await expect(drawer.getByText(`${maxText} BTC`)).toBeVisible();
  await snap(page, '55-create-max-confirm');
  await checkA11y(page);
});

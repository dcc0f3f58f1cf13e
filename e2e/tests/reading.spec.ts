// What a borrower reads is true at a glance. On the real devnet: the create success
// summary; the liquidation price card's price now and distance; the labelled UNIT bar; the chart
// spanning each period with steps and markers; withdraw's fee paid from the vault, its maximum, its
// preview equal to the result, and the cards pending until the block; the Risky warning before a
// borrow at the maximum; the gauge's band sentences; the liquidation modal's next steps, with no
// Deposit shortcut and an L marker on the chart.
import type { Locator, Page } from '@playwright/test';
import { test, expect } from '../support/fixtures';
import { confirmCreation, connectDevnetWallet, openDrawer } from '../support/journey';

const START_PRICE_USD = 95_000;

/** '0.0149867 BTC' -> 1498670 sats, exactly. */
const satsOf = (text: string) => {
  const m = /(\d+)\.(\d{1,8}) BTC/.exec(text);
  if (!m) throw new Error(`no BTC amount in ${text}`);
  return BigInt(m[1]!) * 100_000_000n + BigInt(m[2]!.padEnd(8, '0'));
};

/** The x where the ratio line starts, and where the plot's axis starts and ends. */
async function lineStart(plot: Locator) {
  return plot.evaluate((el) => {
    const d = el.querySelector('path.chart__line')!.getAttribute('d')!;
    const grid = el.querySelector('line.chart__grid')!;
    return {
      x: Number(/^M([\d.]+)/.exec(d)![1]),
      left: Number(grid.getAttribute('x1')),
      right: Number(grid.getAttribute('x2')),
      ticks: el.querySelectorAll('text.chart__tick').length - 6,
      curved: /[CQS]/.test(d),
    };
  });
}

async function openReadingVault(page: Page) {
  await page.getByRole('button', { name: 'Create Vault' }).first().click();
  await page.getByLabel('Vault name').fill('Reading');
  await page.getByRole('button', { name: 'Continue' }).click();
  const amounts = page.locator('.sheet input[inputmode="decimal"]');
  await expect(page.getByText(/Available: 0\.99/)).toBeVisible();
  await amounts.nth(0).fill('0.03');
  await amounts.nth(1).fill('1000');
  await page.getByRole('button', { name: 'Preview' }).click();
  // the confirmation's fee in BTC and USD
  await expect(page.getByText(/sat\/vB · about 0\.\d+ BTC \(\$\d+\.\d\d\)/)).toBeVisible();
  await page.getByRole('button', { name: 'Confirm' }).click();
}

test('cards, drawers and chart say what will happen and what has happened', async ({
  page,
  devnet,
  checkA11y,
  snap,
}) => {
  test.info().setTimeout(300_000);
  const phone = test.info().project.name.startsWith('phone');
  // The journeys share one devnet, and another may have moved its price.
  await devnet.setPrice(START_PRICE_USD);
  try {
    await connectDevnetWallet(page, devnet);
    await openReadingVault(page);
    await confirmCreation(page, devnet);

    // The success screen sums up what was created: 0.03 BTC against 1,000.00 UNIT, 285%,
    // liquidated at 1,000 x 1.35 / 0.03 = $45,000.00.
    const summary = page.getByTestId('creation-summary');
    await expect(summary).toContainText('VaultReading');
    await expect(summary).toContainText('Collateral0.03 BTC');
    await expect(summary).toContainText('Borrowed1,000.00 UNIT');
    await expect(summary).toContainText('Collateral ratio285%');
    await expect(summary).toContainText('Liquidation price$45,000.00');
    await checkA11y(page);
    await snap(page, '60-create-summary');
    await page.getByRole('button', { name: 'Go to Vault' }).click();

    // The liquidation price card: the price now and how far it may fall.
    const liq = page.getByRole('region', { name: 'Liquidation price' });
    await expect(liq.getByTestId('liquidation-price')).toHaveText('$45,000.00');
    await expect(liq.getByTestId('btc-price-now')).toHaveText('$95,000.00');
    await expect(liq.getByTestId('liquidation-distance')).toHaveText('52.6% ($50,000.00) above');
    // The UNIT bar is labelled and read: the 1,000.00 UNIT borrowed are all in the wallet.
    const unit = page.getByRole('region', { name: 'UNIT loan balance' });
    await expect(
      unit.getByRole('progressbar', { name: 'UNIT in your wallet against your debt' }),
    ).toHaveAttribute('aria-valuenow', '100', { timeout: 30_000 });
    await expect(unit.getByTestId('unit-bar-reading')).toHaveText(
      'Your wallet holds enough UNIT to repay the whole debt.',
    );

    // The chart spans each period: a vault minutes old sits at the right end of 1D, further right
    // on YTD, drawn as steps, with the day's ticks; the opening is marked.
    const chart = page.getByRole('region', { name: 'Collateral ratio', exact: true });
    const plotOf = (label: string) =>
      chart.getByRole('group', { name: `Chart of the collateral ratio, ${label}` });
    await expect(plotOf('1D')).toBeVisible();
    const day = await lineStart(plotOf('1D'));
    expect(day.curved).toBe(false);
    expect(day.ticks).toBeGreaterThanOrEqual(phone ? 3 : 6);
    // a few minutes of a 24-hour axis: within its last 2%
    expect(day.x).toBeGreaterThan(day.right - (day.right - day.left) * 0.02);
    await expect(plotOf('1D').locator('[data-action*="o"]')).toHaveCount(1);
    await chart.getByRole('button', { name: 'YTD' }).click();
    // the same axis width from the first frame: the plot does not jump once measured
    const year = await lineStart(plotOf('YTD'));
    expect(year.right).toBe(day.right);
    expect(year.x).toBeGreaterThanOrEqual(day.x);
    await chart.getByRole('button', { name: '1D' }).click();
    await expect(plotOf('1D')).toBeVisible();

    // Withdraw: the fee is paid from the vault, said with its USD; the maximum is shown.
    const drawer = await openDrawer(page, 'Withdraw');
    const fee = drawer.getByTestId('network-fee');
    await expect(fee).toContainText(
      /^Network fee paid from the vault: 0\.\d+ BTC \(\$\d+\.\d\d\)$/,
    );
    await expect(
      drawer.getByText(/^Up to 0\.\d+ BTC\. Amount of BTC you can withdraw/),
    ).toBeVisible();
    await drawer.locator('input[inputmode="decimal"]').first().fill('0.005');
    await expect(drawer.getByLabel('Vault after this transaction')).toBeVisible();
    await checkA11y(page);
    await snap(page, '61-withdraw-drawer');
    const feeSats = satsOf((await fee.textContent())!);
    const expected = 3_000_000n - 500_000n - feeSats;
    await drawer.getByRole('button', { name: 'Withdraw', exact: true }).click();
    await expect(page.getByText('BTC Withdrawal Submitted').first()).toBeVisible();

    // Until its block: the confirmed 0.03 BTC, and the pending figure beside it.
    const btc = page.getByRole('region', { name: 'BTC deposited' });
    await expect(btc.getByTestId('btc-deposited')).toHaveText('0.03 BTC');
    const pending = btc.getByTestId('pending-figure');
    await expect(pending).toContainText('Pending');
    expect(satsOf((await pending.textContent())!)).toBe(expected);
    await checkA11y(page);
    await snap(page, '62-withdraw-pending');
    await devnet.mine(1);
    // The result is the preview: 0.03 - 0.005 - the fee the drawer said, to the sat.
    await expect(btc.getByTestId('pending-figure')).toHaveCount(0, { timeout: 60_000 });
    expect(satsOf((await btc.getByTestId('btc-deposited').textContent())!)).toBe(expected);
    // the withdrawal is marked on the chart at once, as the opening is
    await expect(plotOf('1D').locator('[data-action*="w"]')).toHaveCount(1);

    // Borrow at the maximum lands on 160%, Risky: warned in the band's colour before Borrow.
    const borrow = await openDrawer(page, 'Borrow');
    await borrow.getByRole('button', { name: 'Max' }).click();
    const warning = borrow.getByTestId('risky-warning');
    await expect(warning).toContainText('in the Risky band (135% - 160%)');
    const colour = await warning.evaluate((el) => getComputedStyle(el).borderTopColor);
    expect(colour).toBe('rgb(242, 84, 91)');
    await expect(borrow.getByTestId('network-fee')).toContainText(/\(\$\d+\.\d\d\)$/);
    await checkA11y(page);
    await snap(page, '63-borrow-risky-warning');
    await borrow.getByRole('button', { name: 'Cancel' }).click();
    await expect(borrow).toBeHidden();

    // The gauge's info: each band and the 135% line, a sentence each.
    const band = page.getByRole('button', { name: 'Moderate 161% - 195%' });
    if (phone) await band.tap();
    else {
      await band.focus();
      await page.keyboard.press('Enter');
    }
    const sheet = page.getByRole('dialog', { name: 'Moderate' });
    await expect(sheet.getByRole('listitem')).toHaveCount(4);
    await expect(sheet.getByRole('listitem').last()).toContainText(
      'Liquidation line (135%): at or under it the vault is liquidated',
    );
    await checkA11y(page);
    await snap(page, '64-gauge-bands');
    await page.keyboard.press('Escape');
    await expect(sheet).toBeHidden();

    // Liquidation: ~0.02499 BTC against 1,000.00 UNIT is liquidated under about $54,000.
    await devnet.setPrice(50_000);
    await page.reload();
    const modal = page.getByRole('dialog', { name: 'Vault in Liquidation' });
    await expect(modal).toBeVisible({ timeout: 60_000 });
    await expect(modal).toContainText('All actions are disabled until liquidation completes.');
    await expect(modal).toContainText('What happens next: another vault repossesses this one');
    await expect(modal).toContainText('What you can do: keep the UNIT you borrowed');
    await checkA11y(page);
    await snap(page, '65-liquidation-modal');
    await page.keyboard.press('Escape');
    await expect(modal).toBeHidden();
    const gauge = page.getByRole('region', { name: 'Vault health' });
    await expect(gauge.getByRole('button', { name: 'Deposit to improve health' })).toHaveCount(0);
    // the liquidation is marked on the chart like any other action
    await expect(plotOf('1D').locator('[data-action*="l"]')).toHaveCount(1, { timeout: 60_000 });
    await checkA11y(page);
    await snap(page, '66-liquidated-dashboard');
  } finally {
    await devnet.setPrice(START_PRICE_USD);
  }
});

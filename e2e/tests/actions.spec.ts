// Journey 2: borrow, repay and withdraw from the dashboard, each through its drawer's three steps,
// the pending banner, a block, and the cards, table and chart that follow (the deposit part is in
// create-vault.spec.ts). The price stays at the devnet's 95,000 USD throughout.
import { format } from 'date-fns';
import type { Locator, Page } from '@playwright/test';
import { test, expect, type Devnet } from '../support/fixtures';
import { connectDevnetWallet, openDrawer, openVault } from '../support/journey';

/** Fills the drawer's amount, submits it and follows the pending entry to Completed. */
async function runAction(
  page: Page,
  devnet: Devnet,
  drawer: Locator,
  { action, amount, title }: { action: string; amount: string; title: string },
) {
  await drawer.locator('input[inputmode="decimal"]').first().fill(amount);
  await drawer.getByRole('button', { name: action, exact: true }).click();
  // Step 3: the exact success title, and the pending banner with 'Finalizing...'.
  await expect(page.getByText(title).first()).toBeVisible();
  await expect(page.getByText('Finalizing...').first()).toBeVisible();
  // The guardian recorded it at broadcast: the table lists it, unconfirmed, as 'Finalizing...'
  // (SPEC §2: the status column is hidden on narrow widths).
  if (!test.info().project.name.startsWith('phone'))
    await expect(
      page
        .getByRole('region', { name: 'Vault transactions', exact: true })
        .getByText('Finalizing...'),
    ).toBeVisible();
  await devnet.mine(1);
  await expect(page.getByText('Finalizing...')).toHaveCount(0, { timeout: 60_000 });
}

/** A borrow or a repay through its drawer; then the ratio, liquidation price and wallet it moved. */
async function moveDebt(
  page: Page,
  devnet: Devnet,
  drawer: Locator,
  step: Parameters<typeof runAction>[3] & { ratio: string; liquidation: string; inWallet: string },
) {
  await runAction(page, devnet, drawer, step);
  await expect(page.getByRole('group', { name: `Collateral ratio ${step.ratio}, Healthy` })).toBeVisible(); // prettier-ignore
  await expect(page.getByText(step.liquidation).first()).toBeVisible();
  await expect(page.getByText(`In wallet: ${step.inWallet}`)).toBeVisible({ timeout: 30_000 });
}

test('borrow, repay and withdraw from the dashboard', async ({ page, devnet, checkA11y, snap }) => {
  const phone = test.info().project.name.startsWith('phone');
  await connectDevnetWallet(page, devnet);
  await openVault(page, devnet, { name: 'Actions', btc: '0.02', unit: '300' });
  // 0.02 BTC x 95,000 / 300 UNIT = 633%: shown as 500+%.
  await expect(page.getByRole('group', { name: 'Collateral ratio 500+%, Healthy' })).toBeVisible();
  await expect(page.getByText('$20,250.00').first()).toBeVisible();

  // Borrow 200 UNIT: 500 UNIT owed, 380%, liquidation at 500 x 1.35 / 0.02 = $33,750.00.
  let drawer = await openDrawer(page, 'Borrow');
  await expect(drawer.getByRole('button', { name: 'Cancel' })).toBeVisible();
  await snap(page, '20-borrow-form');
  await checkA11y(page);
  await moveDebt(page, devnet, drawer, {
    ...{ action: 'Borrow', amount: '200', title: 'Vault Borrow Submitted!' },
    ...{ ratio: '380%', liquidation: '$33,750.00', inWallet: '500.00 UNIT' },
  });
  await checkA11y(page);
  await snap(page, '21-borrowed');

  // Repay 100 UNIT: 400 UNIT owed, 475%, liquidation at $27,000.00.
  drawer = await openDrawer(page, 'Repay');
  await moveDebt(page, devnet, drawer, {
    ...{ action: 'Repay', amount: '100', title: 'UNIT Repayment Submitted' },
    ...{ ratio: '475%', liquidation: '$27,000.00', inWallet: '400.00 UNIT' },
  });
  await checkA11y(page);
  await snap(page, '22-repaid');

  // Withdraw 0.005 BTC: the vault pays the fee, so it keeps a little under 0.015 BTC (356%).
  drawer = await openDrawer(page, 'Withdraw');
  await runAction(page, devnet, drawer, {
    action: 'Withdraw',
    amount: '0.005',
    title: 'BTC Withdrawal Submitted',
  });
  await expect(page.getByText(/0\.0149\d* BTC/).first()).toBeVisible();
  await expect(page.getByRole('group', { name: 'Collateral ratio 356%, Healthy' })).toBeVisible();
  await checkA11y(page);
  await snap(page, '23-withdrawn');

  // The transactions table: this month's group, every action with its code's colour (SPEC §3).
  const table = page.getByRole('region', { name: 'Vault transactions', exact: true });
  await expect(table.getByText(format(new Date(), 'MMMM yyyy'))).toBeVisible();
  const colours: Record<string, 'green' | 'red'> = {
    'Open Vault': 'green',
    'Borrow UNIT': 'red',
    'Repay UNIT': 'green',
    'Withdraw BTC': 'red',
  };
  for (const [type, colour] of Object.entries(colours)) {
    const row = table.getByRole('row', { name: new RegExp(type) });
    await expect(row).toBeVisible();
    await expect(row.locator('[data-colour]')).toHaveAttribute('data-colour', colour);
    // SPEC §2: the status column is hidden on narrow widths.
    if (!phone) await expect(row).toContainText('Completed');
  }

  // The chart draws the ratio on every interval from the vault's opening, with its summary.
  const chart = page.getByRole('region', { name: 'Collateral ratio', exact: true });
  for (const label of ['1D', '1W', '1M', 'YTD']) {
    await chart.getByRole('button', { name: label }).click();
    const plot = chart.getByRole('group', { name: `Chart of the collateral ratio, ${label}` });
    await expect(plot).toBeVisible();
    await expect(chart.getByText(/^Now (\d+|500\+)%$/)).toBeVisible();
  }
  // Keyboard: focus reads the latest point, the arrows step back to the actions before it.
  const plot = chart.getByRole('group', { name: 'Chart of the collateral ratio, YTD' });
  await plot.focus();
  const tooltip = plot.getByRole('status');
  await expect(tooltip).toContainText(/Ratio \d+%/);
  await expect(tooltip).toContainText('BTC $95,000.00');
  await page.keyboard.press('Home');
  // the axis starts when the vault opened: its first point is the opening
  await expect(tooltip).toContainText('Open Vault');
  // SPEC §9: the 135% line is labelled; the axis labels are at least 11 px
  await expect(plot.getByText('Liquidation 135%')).toBeVisible();
  const tickSize = await plot
    .getByText('125%', { exact: true })
    .evaluate((el) => parseFloat(getComputedStyle(el).fontSize));
  expect(tickSize).toBeGreaterThanOrEqual(11);
  if (phone) {
    // SPEC §2: fullscreen on a phone fills the screen, and Escape leaves it.
    await chart.getByRole('button', { name: 'Fullscreen' }).click();
    const full = page.getByRole('dialog', { name: 'Collateral ratio' });
    await expect(full.getByRole('button', { name: 'Exit fullscreen' })).toBeFocused();
    const box = (await full.boundingBox())!;
    expect(box.width).toBe(page.viewportSize()!.width);
    expect(box.height).toBe(page.viewportSize()!.height);
    await checkA11y(page);
    await snap(page, '23-chart-fullscreen');
    await page.keyboard.press('Escape');
    await expect(full).toBeHidden();
    await expect(chart.getByRole('button', { name: 'Fullscreen' })).toBeFocused();
  }
  await checkA11y(page);
  await snap(page, '24-chart-and-table');
});

// Every figure honest in every state, on the real devnet: the header's 24h change follows the price
// it shows through a 20% fall; while a deposit waits for its block every card shows one state, the
// confirmed one, with the pending after-state apart and named; and when the price goes stale the
// dashboard says so before any click (the cause, since when, what to do), every action button
// carries that cause, a refusal is a full sentence, and its toast leaves the drawer's Back free.
import type { Page } from '@playwright/test';
import { test, expect } from '../support/fixtures';
import { connectDevnetWallet, openDrawer, openVault, submitDeposit } from '../support/journey';

const START_PRICE_USD = 95_000;
const ACTIONS = ['Deposit', 'Withdraw', 'Borrow', 'Repay'] as const;

// What the user reads while the devnet's feed is stopped (packages/protocol/src/price-pause.ts).
const PAUSED = {
  refusal:
    'Vault actions are paused because the bitcoin price is stale (the price feeds give no fresh price). Nothing was sent; please try again once the dashboard shows a fresh price.',
  whatToDo:
    'Your vault and its funds are unchanged. Deposit, withdraw, borrow and repay open again by themselves once a fresh price arrives; keep this page open or come back in a few minutes.',
  button: 'Paused: the bitcoin price is stale. This opens again once a fresh price arrives.',
};

const actionButton = (page: Page, name: string) =>
  page.getByRole('button', { name, exact: true }).first();

/** The header's change as a signed number: '▼ −20.00% 24h' -> -20. */
async function headerChange(page: Page): Promise<number> {
  const change = page.getByRole('banner').getByRole('button', { name: /^Price change / });
  const text = (await change.textContent()) ?? '';
  const m = /([+\u2212]?)([\d,]+\.\d\d)%/.exec(text);
  if (!m) throw new Error(`no percent in "${text}"`);
  const value = Number(m[2]!.replace(/,/g, ''));
  return m[1] === '\u2212' ? -value : value;
}

/** Stops or starts the devnet's simulated price feed (POST /api/devnet/price-feed). */
async function setFeedRunning(page: Page, running: boolean) {
  const res = await page.request.post('/api/devnet/price-feed', { data: { running } });
  expect(res.status()).toBe(200);
}

test("the header's 24h change follows the price it shows through a 20% fall", async ({
  page,
  snap,
}) => {
  try {
    await page.goto('/');
    const header = page.locator('.price-banner strong');
    await expect(header).toHaveText('$95,000.00');
    const change = page.getByRole('banner').getByRole('button', { name: /^Price change / });
    await expect(change).toContainText(/%\s*24h$/);
    const before = await headerChange(page);
    // The same day's series, its start fixed: a 20% fall moves the change by the same factor.
    const expected = (usd: number) => ((1 + before / 100) * (usd / START_PRICE_USD) - 1) * 100;
    await page.request.post('/api/devnet/price', { data: { usd: 76_000 } });
    await expect(header).toHaveText('$76,000.00');
    await expect.poll(() => headerChange(page)).toBeCloseTo(expected(76_000), 1);
    await expect(change).toContainText('▼');
    await snap(page, '90-change-after-20pc-fall');
    await page.request.post('/api/devnet/price', { data: { usd: 60_000 } });
    await expect(header).toHaveText('$60,000.00');
    await expect.poll(() => headerChange(page)).toBeCloseTo(expected(60_000), 1);
    expect(await headerChange(page)).toBeLessThan(-30);
  } finally {
    await page.request.post('/api/devnet/price', { data: { usd: START_PRICE_USD } });
  }
});

test('a pending deposit: every card shows the confirmed state, the after-state apart and named', async ({
  page,
  devnet,
  checkA11y,
  snap,
}) => {
  test.info().setTimeout(240_000);
  // 0.03 BTC backing 1,000.00 UNIT at $95,000: 285%, liquidated at $45,000.00.
  await connectDevnetWallet(page, devnet);
  await openVault(page, devnet, { name: 'Pending', btc: '0.03', unit: '1000' });
  await submitDeposit(page, '0.01');

  const btc = page.getByRole('region', { name: 'BTC deposited' });
  await expect(btc.getByTestId('btc-deposited')).toHaveText('0.03 BTC');
  await expect(btc.getByTestId('pending-figure')).toHaveText(
    'PendingAfter the pending deposit: 0.04 BTC',
  );
  // The liquidation card: its price and its distance both of the confirmed 0.03 BTC; the
  // deposit's 1,000 x 1.35 / 0.04 = $33,750.00, $61,250.00 (64.4%) under $95,000, apart.
  const liq = page.getByRole('region', { name: 'Liquidation price' });
  await expect(liq.getByTestId('liquidation-price')).toHaveText('$45,000.00');
  await expect(liq.getByTestId('btc-price-now')).toHaveText('$95,000.00');
  await expect(liq.getByTestId('liquidation-distance')).toHaveText('52.6% ($50,000.00) above');
  await expect(liq.getByTestId('pending-figure')).toHaveText(
    'PendingAfter the pending deposit: $33,750.00, 64.4% ($61,250.00) above',
  );
  // The gauge and the chart's "Now" agree: 285%; 0.04 x 95,000 / 1,000 = 380% after the deposit.
  const gauge = page.getByRole('region', { name: 'Vault health' });
  await expect(gauge.getByRole('group', { name: /^Collateral ratio 285%/ })).toBeVisible();
  await expect(gauge.getByTestId('pending-figure')).toHaveText(
    'PendingAfter the pending deposit: 380%',
  );
  const chart = page.getByRole('region', { name: 'Collateral ratio', exact: true });
  await expect(chart.locator('.chart__summary')).toContainText('Now 285%');
  await checkA11y(page);
  await snap(page, '91-pending-deposit-cards');

  // The block: one state again, everywhere.
  await devnet.mine(1);
  await expect(btc.getByTestId('btc-deposited')).toHaveText('0.04 BTC', { timeout: 60_000 });
  await expect(page.getByTestId('pending-figure')).toHaveCount(0);
  await expect(liq.getByTestId('liquidation-distance')).toHaveText('64.4% ($61,250.00) above');
  await expect(gauge.getByRole('group', { name: /^Collateral ratio 380%/ })).toBeVisible();
  await expect(chart.locator('.chart__summary')).toContainText('Now 380%');
});

test('a stale price pauses the dashboard before any click, with the cause, and says it again on a refusal', async ({
  page,
  devnet,
  checkA11y,
  snap,
}) => {
  test.info().setTimeout(240_000);
  const phone = test.info().project.name.startsWith('phone');
  try {
    await connectDevnetWallet(page, devnet);
    await openVault(page, devnet, { name: 'Paused', btc: '0.02', unit: '300' });
    for (const name of ACTIONS) await expect(actionButton(page, name)).toBeEnabled();
    await expect(page.getByTestId('price-paused')).toHaveCount(0);

    // The price goes stale while the borrow drawer is open: the request is refused with the
    // cause, in a full sentence, and the toast saying so leaves the drawer's Back free.
    const drawer = await openDrawer(page, 'Borrow');
    await drawer.getByRole('textbox', { name: 'Borrow amount' }).fill('10');
    await setFeedRunning(page, false);
    await drawer.getByRole('button', { name: 'Borrow', exact: true }).click();
    const toast = page.locator('.toast').filter({ hasText: PAUSED.refusal });
    await expect(toast).toBeVisible({ timeout: 30_000 });
    const back = drawer.getByRole('button', { name: 'Back', exact: true });
    await expect(back).toBeVisible();
    const [t, b] = [(await toast.boundingBox())!, (await back.boundingBox())!];
    const overlaps =
      t.x < b.x + b.width && b.x < t.x + t.width && t.y < b.y + b.height && b.y < t.y + t.height;
    expect(overlaps, 'the toast covers the Back button').toBe(false);
    // nothing else takes the click either
    await back.click({ trial: true });
    await snap(page, '92-refusal-toast-and-back');
    await back.click();
    await page.keyboard.press('Escape');
    await expect(page.getByRole('dialog')).toHaveCount(0);

    // The failed flow's banner says why, not only that it failed.
    await expect(page.getByRole('alert').filter({ hasText: 'Transaction failed' })).toContainText(
      PAUSED.refusal,
    );
    // The dashboard says it before any click: the cause, since when, what to do.
    const banner = page.getByTestId('price-paused');
    await expect(banner).toBeVisible();
    await expect(banner).toContainText('Vault actions are paused');
    await expect(banner).toContainText(
      /The bitcoin price is stale: the price feeds have given no fresh price since \d\d:\d\d\./,
    );
    await expect(banner).toContainText(PAUSED.whatToDo);
    for (const name of ACTIONS) {
      await expect(actionButton(page, name)).toBeDisabled();
      await expect(actionButton(page, name)).toHaveAccessibleDescription(PAUSED.button);
    }
    // the first of the four (each carries the same reason, so the first tooltip is its)
    const wrapper = actionButton(page, 'Deposit').locator('xpath=..');
    if (phone) await wrapper.tap();
    else await wrapper.hover();
    await expect(page.locator('.tooltip').filter({ hasText: PAUSED.button }).first()).toBeVisible();
    await checkA11y(page);
    await snap(page, '93-paused-banner');

    // A fresh price opens them again, without a reload.
    await setFeedRunning(page, true);
    await expect(banner).toHaveCount(0, { timeout: 30_000 });
    for (const name of ACTIONS) await expect(actionButton(page, name)).toBeEnabled();
  } finally {
    await setFeedRunning(page, true);
    await devnet.setPrice(START_PRICE_USD);
  }
});

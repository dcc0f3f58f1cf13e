// What a borrower reads is true outside the happy path too. On the real devnet: a young vault's
// chart marks each action at the ratio it left (never stacked above it) and says what happened on
// hover, tap or focus; and the missions of an address that has done one show no progress until
// it signs in, then the progress that was there all along.
import type { Locator } from '@playwright/test';
import { test, expect } from '../support/fixtures';
import { connectDevnetWallet, openVault, submitDeposit } from '../support/journey';

const START_PRICE_USD = 95_000;

/** The ratio a marker's centre sits at, read off the chart's own grid lines (125..500). */
async function markerRatio(plot: Locator, marker: Locator) {
  const box = (await marker.boundingBox())!;
  const centre = box.y + box.height / 2;
  const grid = await plot.evaluate((el) => {
    const top = el.getBoundingClientRect().top;
    return [...el.querySelectorAll('line.chart__grid')].map(
      (l) => top + Number(l.getAttribute('y1')),
    );
  });
  // ticks 125, 200, ... 500 from the bottom up: 75 points of ratio between grid lines
  const [y125, y200] = [grid[0]!, grid[1]!];
  return 125 + ((y125 - centre) / (y125 - y200)) * 75;
}

test("a young vault's chart marks each action where it happened, and says what it was", async ({
  page,
  devnet,
  checkA11y,
  snap,
}) => {
  test.info().setTimeout(240_000);
  const touch = test.info().project.use.hasTouch === true;
  await devnet.setPrice(START_PRICE_USD);
  await connectDevnetWallet(page, devnet);
  // 0.02 BTC × 95,000 / 1,000 UNIT = 190%; a deposit of 0.01 BTC then makes it 285%.
  await openVault(page, devnet, { name: 'Young', btc: '0.02', unit: '1000' });
  await submitDeposit(page, '0.01');
  await devnet.mine(1);
  await expect(page.getByTestId('btc-deposited')).toHaveText('0.03 BTC', { timeout: 60_000 });

  const plot = page.getByRole('group', { name: /^Chart of the collateral ratio/ });
  const markers = plot.getByRole('group', { name: 'Actions on the chart' });
  const deposit = markers.getByRole('button', { name: /^Deposit BTC: 0\.01 BTC deposited on / });
  const opening = markers.getByRole('button', { name: /^Open Vault: 0\.02 BTC deposited, / });
  await expect(deposit).toBeVisible();
  await expect(opening).toBeVisible();
  // Each at the ratio it left, within a marker's half-height: nothing lifted to ~290%.
  expect(Math.abs((await markerRatio(plot, opening)) - 190)).toBeLessThan(8);
  expect(Math.abs((await markerRatio(plot, deposit)) - 285)).toBeLessThan(8);

  // Hover (a tap on a phone): what happened, how much, when, and the ratio after it.
  if (touch) await deposit.tap();
  else await deposit.hover();
  const tip = page.getByRole('tooltip');
  await expect(tip).toBeVisible();
  await expect(tip).toContainText('Deposit BTC');
  await expect(tip).toContainText('0.01 BTC deposited');
  await expect(tip).toContainText(/[A-Z][a-z]{2} \d{1,2}, \d{4}, \d{2}:\d{2}/);
  await expect(tip).toContainText('Ratio after 285%');
  await expect(tip).toBeInViewport({ ratio: 1 });
  await checkA11y(page);
  await snap(page, 'h1-chart-marker-tooltip');

  // Keyboard: the markers are one tab stop, the arrow keys step between them.
  await deposit.focus();
  await page.keyboard.press('Home');
  await expect(opening).toBeFocused();
  await expect(tip).toContainText('Open Vault');
  await expect(tip).toContainText('0.02 BTC deposited, 1,000.00 UNIT borrowed');
  await expect(tip).toContainText('Ratio after 190%');
  await page.keyboard.press('Escape');
  await expect(tip).toBeHidden();

  // Missions before sign-in: this address opened a vault, yet no progress is shown beside the
  // request to log in or register.
  await page.goto('/missions');
  const missions = page.getByRole('region', { name: 'Missions' });
  await expect(missions.getByText('Log in or register to take part in missions.')).toBeVisible();
  await expect(missions.getByRole('heading', { name: 'Open your vault' })).toBeVisible();
  await expect(missions.getByText(/of \d+ completed/)).toHaveCount(0);
  await expect(missions.getByText('Completed', { exact: true })).toHaveCount(0);
  await expect(missions.getByRole('progressbar')).toHaveCount(0);
  await expect(missions.getByText(/\d+\/\d+ tasks/)).toHaveCount(0);
  // the postage explained as the drawers say it: a repayment's goes to the treasury
  await expect(page.getByText(/A repayment also pays 10,000 sats of postage/)).toBeVisible();
  await checkA11y(page);
  await snap(page, 'h2-missions-signed-out');

  // Registered and signed in: the progress is the user's own, and there all along.
  await missions.getByRole('button', { name: 'Register' }).click();
  await expect(missions.getByRole('button', { name: 'Register' })).toBeHidden();
  await expect(missions.getByText(/^[1-9] of 6 completed$/)).toBeVisible();
  await expect(
    missions
      .getByRole('heading', { name: 'Open your vault' })
      .locator('xpath=ancestor::li')
      .getByText('Completed'),
  ).toBeVisible();
  await snap(page, 'h3-missions-signed-in');
});

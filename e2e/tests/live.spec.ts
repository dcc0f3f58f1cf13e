// Live state: with the dashboard open and nothing reloaded, a price set on the devnet
// reaches the page over GET /api/events; the header price, the gauge, the 'Liquidating...' badge
// and the modal agree within a second, long before any poll would have run.
import { test, expect } from '../support/fixtures';
import { connectDevnetWallet, openVault } from '../support/journey';

const START_PRICE_USD = 95_000;

test('a price drop under the liquidation price shows everywhere at once, without a reload', async ({
  page,
  devnet,
  checkA11y,
}) => {
  test.info().setTimeout(180_000);
  try {
    // 0.01 BTC backing 400 UNIT: liquidation at $54,000.00.
    await connectDevnetWallet(page, devnet);
    await openVault(page, devnet, { name: 'Live', btc: '0.01', unit: '400' });
    const header = page.locator('.price-banner strong');
    await expect(header).toHaveText('$95,000.00');
    // The header shows the price and its change at every width, phones included (SPEC §9), on
    // screen and without widening the page; a tap moves the change to the next period.
    await expect(header).toBeInViewport();
    const change = page.getByRole('banner').getByRole('button', { name: /^Price change / });
    await expect(change).toBeInViewport();
    await expect(change).toContainText('24h');
    await change.click();
    await expect(change).toContainText('7d');
    const { width } = page.viewportSize()!;
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(
      width,
    );
    await checkA11y(page);
    await expect(page.getByRole('group', { name: /^Collateral ratio 238%/ })).toBeVisible();

    // 0.01 BTC x 50,000 / 400 UNIT = 125%.
    await devnet.setPrice(50_000);
    const within = { timeout: 1_000 };
    await expect(header).toHaveText('$50,000.00', within);
    await expect(header).toBeVisible();
    const modal = page.getByRole('dialog', { name: 'Vault in Liquidation' });
    await expect(modal).toBeVisible(within);
    await page.keyboard.press('Escape');
    await expect(page.getByRole('group', { name: /^Collateral ratio 125%/ })).toBeVisible(within);
    await expect(page.getByText('Liquidating...').first()).toBeVisible(within);
    await expect(page.getByTestId('liquidation-price')).toHaveText('$54,000.00', within);
  } finally {
    await devnet.setPrice(START_PRICE_USD);
  }
});

// Journey 5: the devnet price falls under a vault's liquidation price; its owner sees the vault in
// liquidation with every action disabled and what happened, with figures, and a second user with a
// vault repossesses it from /liquidations. The first user's history then shows the liquidation (l)
// and the claim (x); the page tells who claimed it and what the owner keeps, the modal is gone, and
// the owner opens a new vault with the same wallet (one live vault per key), which starts fresh.
import { test, expect } from '../support/fixtures';
import { confirmCreation, connectDevnetWallet, openVault } from '../support/journey';

const START_PRICE_USD = 95_000;

test('a vault under its liquidation price is liquidated and repossessed by another user', async ({
  page,
  browser,
  baseURL,
  devnet,
  checkA11y,
  snap,
}) => {
  // Other journeys share this server: the price goes back whatever happens here.
  test.info().setTimeout(240_000);
  try {
    // The first user borrows 400 UNIT on 0.01 BTC: liquidation at 400 x 1.35 / 0.01 = $54,000.00.
    await connectDevnetWallet(page, devnet);
    await openVault(page, devnet, { name: 'Fragile', btc: '0.01', unit: '400' });
    await expect(page.getByText('$54,000.00').first()).toBeVisible();

    // A second user, in a browser of their own, opens a well-collateralised vault.
    const other = await browser.newContext({
      baseURL,
      viewport: page.viewportSize(),
      bypassCSP: true,
    });
    const claimant = await other.newPage();
    await connectDevnetWallet(claimant, devnet);
    await openVault(claimant, devnet, { name: 'Sturdy', btc: '0.5', unit: '100' });

    // 0.01 BTC x 50,000 / 400 UNIT = 125%, under the 135% threshold.
    await devnet.setPrice(50_000);
    await page.reload();
    const modal = page.getByRole('dialog', { name: 'Vault in Liquidation' });
    await expect(modal).toBeVisible();
    await expect(
      modal.getByText('All actions are disabled until liquidation completes.'),
    ).toBeVisible();
    await checkA11y(page);
    await snap(page, '30-liquidation-modal');
    await page.keyboard.press('Escape');
    await expect(page.getByRole('dialog', { name: 'Vault in Liquidation' })).toBeHidden();
    await expect(page.getByText('Liquidating...').first()).toBeVisible();
    // What happened: the oracle price against the vault's liquidation price, the state then.
    const outcome = page.getByRole('region', { name: 'What happened to this vault' });
    await expect(outcome).toContainText('the oracle price of BTC fell to $50,000.00');
    await expect(outcome).toContainText("this vault's liquidation price of $54,000.00");
    await expect(outcome).toContainText('Its collateral ratio was 125%');
    await expect(outcome.getByText('0.01 BTC', { exact: true })).toBeVisible();
    await expect(outcome.getByText('400.00 UNIT', { exact: true })).toBeVisible();
    await expect(outcome.getByRole('link', { name: /^View transaction/ })).toBeVisible();
    // Its link is the vault output the claim will spend, and says so.
    await expect(outcome).toContainText('Vault output being claimed (made by');
    // The cards agree with the modal: nothing is owed, the collateral goes to a claimant.
    const unitCard = page.getByRole('region', { name: 'UNIT loan balance' });
    await expect(unitCard.getByTestId('unit-debt')).toHaveText('0.00 UNIT');
    await expect(unitCard).toContainText(
      'Nothing is owed: the 400.00 UNIT debt goes to whoever repossesses the vault, and the UNIT you borrowed is yours to keep.',
    );
    await expect(unitCard).not.toContainText('repay the whole debt');
    await expect(page.getByRole('region', { name: 'BTC deposited' })).toContainText(
      'Whoever repossesses the vault takes 0.0085 BTC (85%) and the treasury 0.0015 BTC (15%).',
    );
    const priceCard = page.getByRole('region', { name: 'Liquidation price' });
    await expect(priceCard).toContainText('so the vault was liquidated');
    await expect(priceCard.getByTestId('liquidation-distance')).toHaveCount(0);
    // The history's liquidation row names what its link is.
    await expect(
      page
        .getByRole('region', { name: 'Vault transactions', exact: true })
        .getByRole('row', { name: /Vault Liquidation/ }),
    ).toContainText('The date links to the vault output being claimed.');
    for (const action of ['Deposit', 'Withdraw', 'Borrow', 'Repay'])
      await expect(page.getByRole('button', { name: action, exact: true })).toBeDisabled();
    // The disabled buttons' reasons widen nothing, hidden or shown. A wider page scrolls
    // sideways on a phone and moved the create drawer's Preview off a 360 px screen.
    const { width } = page.viewportSize()!;
    const pageWidth = () => page.evaluate(() => document.documentElement.scrollWidth);
    expect(await pageWidth()).toBeLessThanOrEqual(width);
    for (const action of ['Withdraw', 'Repay']) {
      const button = page.getByRole('button', { name: action, exact: true });
      const wrapper = page.locator('.reason-wrap', { has: button });
      if (test.info().project.use.hasTouch) await wrapper.tap();
      else await wrapper.hover();
      const reason = page.locator('.reason-anchor', { has: button }).locator('.tooltip');
      await expect(reason).toBeVisible();
      await expect(reason).toBeInViewport({ ratio: 1 });
      expect(await pageWidth()).toBeLessThanOrEqual(width);
    }
    // A tap or a click elsewhere puts the reason away.
    await page.getByRole('heading', { level: 1 }).click();
    await expect(page.locator('.tooltip:visible')).toHaveCount(0);
    await checkA11y(page);
    await snap(page, '31-liquidating');

    // The claimant repossesses it from /liquidations.
    await claimant.goto('/liquidations');
    const row = claimant.getByRole('row', { name: /Fragile/ });
    await expect(row).toBeVisible();
    await checkA11y(claimant);
    await snap(claimant, '32-liquidations');
    // Down to 360 px nothing scrolls sideways and Repossess is on screen.
    const size = claimant.viewportSize()!;
    for (const width of [390, 360]) {
      await claimant.setViewportSize({ width, height: size.height });
      expect(
        await claimant.evaluate(() => document.documentElement.scrollWidth),
      ).toBeLessThanOrEqual(width);
      await expect(row.getByRole('button', { name: 'Repossess' })).toBeInViewport();
    }
    await checkA11y(claimant);
    await snap(claimant, '32-liquidations-360');
    await claimant.setViewportSize(size);
    await row.getByRole('button', { name: 'Repossess' }).click();
    // Repossess is a flow like the others: the drawer reviews the claim, tracks it, then succeeds.
    // The drawer's title follows its step (Repossess, Processing transaction, the success title).
    const confirm = claimant.getByRole('dialog');
    await expect(confirm.getByRole('heading', { name: 'Repossess' })).toBeVisible();
    await expect(confirm.getByText('Fragile')).toBeVisible();
    // 15% of 0.01 BTC goes to the treasury; the claimant takes the rest and the 400 UNIT debt.
    await expect(confirm.getByText('0.0085 BTC')).toBeVisible();
    await expect(confirm.getByText('400.00 UNIT')).toBeVisible();
    await checkA11y(claimant);
    await snap(claimant, '33-repossess-confirm');
    await confirm.getByRole('button', { name: 'Repossess', exact: true }).click();
    await expect(
      confirm.getByRole('heading', { name: 'Liquidation Claim Submitted' }).last(),
    ).toBeVisible();
    const tracker = confirm.getByRole('list', { name: 'Progress' });
    for (const step of ['Signature collection', 'Received by node', 'Validation', 'Submitting'])
      await expect(tracker.getByText(step)).toBeVisible();
    await expect(tracker.getByText('✓')).toHaveCount(4);
    await expect(confirm.getByRole('link', { name: /^View transaction/ })).toBeVisible();
    await checkA11y(claimant);
    await snap(claimant, '34-claim-submitted');
    await confirm.getByRole('button', { name: 'Close' }).last().click();
    await expect(confirm).toBeHidden();
    await devnet.mine(1);
    await expect(row.getByText('Repossessed')).toBeVisible({ timeout: 30_000 });
    await checkA11y(claimant);
    await snap(claimant, '35-repossessed');

    // The claimant's vault took the collateral (0.5 + 0.0085 BTC) and the debt (100 + 400 UNIT).
    await claimant.goto('/');
    await expect(claimant.getByText('0.5085 BTC').first()).toBeVisible();
    // Its pending entry completed with the block, like any flow's.
    await expect(claimant.getByText('Finalizing...')).toHaveCount(0, { timeout: 60_000 });
    await expect(claimant.getByText(/500(\.00)? UNIT/).first()).toBeVisible();
    await other.close();

    // The first user's history holds the liquidation and the claim.
    await page.reload();
    const table = page.getByRole('region', { name: 'Vault transactions', exact: true });
    await expect(table.getByRole('row', { name: /Vault Liquidation/ })).toBeVisible();
    await expect(table.getByRole('row', { name: /Liquidation Claim/ })).toBeVisible();
    // Its collateral and debt went to the claimant: the cards show an empty vault.
    await expect(page.getByText('0 BTC', { exact: true }).first()).toBeVisible();
    await expect(page.getByText('0.00 UNIT', { exact: true }).first()).toBeVisible();
    // The liquidation has completed: no modal, no 'Liquidating...', but what came of it.
    const closed = page.getByRole('region', { name: 'This vault was liquidated and repossessed' });
    await expect(closed).toBeVisible();
    await expect(page.getByRole('region', { name: 'UNIT loan balance' })).toContainText(
      'Nothing is owed: the 400.00 UNIT debt went to the claimant with the collateral',
    );
    await expect(page.getByRole('region', { name: 'BTC deposited' })).toContainText(
      'Repossessed: the collateral went 0.0085 BTC to the claimant and 0.0015 BTC (15%) to the treasury.',
    );
    await expect(closed).toContainText('Vault output claimed (made by');
    await expect(page.getByRole('dialog', { name: 'Vault in Liquidation' })).toBeHidden();
    await expect(page.getByText('Liquidating...')).toHaveCount(0);
    await expect(closed.getByText('Claimed by').locator('..')).toContainText('Sturdy (vault ');
    await expect(closed.getByRole('link', { name: /^View transaction/ })).toHaveCount(2);
    await expect(closed).toContainText('The 400.00 UNIT you borrowed are yours to keep');
    await expect(closed).toContainText('0.0085 BTC to the claimant and 0.0015 BTC (15%)');
    await checkA11y(page);
    await snap(page, '36-history-l-and-x');
    await snap(page, '37-liquidation-outcome');
    expect(await pageWidth()).toBeLessThanOrEqual(width);

    // One live vault per key: the repossessed vault is closed, so this wallet opens the next.
    await closed.getByRole('button', { name: 'Open a new vault' }).click();
    await expect(page.getByRole('dialog')).toContainText('Name Your Vault');
    await checkA11y(page);
    await snap(page, '38-new-vault-after-repossession');
    await page.getByLabel('Vault name').fill('Phoenix');
    await page.getByRole('button', { name: 'Continue' }).click();
    // Still connected: no Connect Wallet step, straight to the amounts.
    const amounts = page.locator('.sheet input[inputmode="decimal"]');
    await expect(page.getByText(/Available: 0\.9/)).toBeVisible();
    await amounts.nth(0).fill('0.01');
    await amounts.nth(1).fill('100');
    await page.getByRole('button', { name: 'Preview' }).click();
    await page.getByRole('button', { name: 'Confirm' }).click();
    await confirmCreation(page, devnet);
    await page.getByRole('button', { name: 'Go to Vault' }).click();
    // The new vault, with its own history: the closed vault's outcome is not on its page.
    await expect(page.getByRole('heading', { level: 1 })).toContainText('Phoenix');
    await expect(page.getByRole('group', { name: /^Collateral ratio / })).toBeVisible();
    await expect(closed).toBeHidden();
    await expect(table.getByRole('row', { name: /Liquidation Claim/ })).toHaveCount(0);
    await expect(table.getByRole('row', { name: /Open Vault/ })).toHaveCount(1);
    // The closed vault stays reachable from the new one's page, with its outcome.
    const earlier = page.getByRole('region', { name: 'Earlier vaults of this wallet' });
    await expect(earlier).toContainText('Fragile (vault ');
    await earlier.getByRole('button', { name: 'What happened' }).click();
    await expect(
      earlier.getByRole('region', { name: 'This vault was liquidated and repossessed' }),
    ).toContainText('The 400.00 UNIT you borrowed are yours to keep');
    await checkA11y(page);
    await snap(page, '39-new-vault-with-earlier-vault');
  } finally {
    await devnet.setPrice(START_PRICE_USD);
  }
});

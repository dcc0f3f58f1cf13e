// Journey: a deposit sent at the lowest fee rate waits, since blocks come only on demand
// (BLOCK_INTERVAL=0); its owner speeds it up from the pending banner (BIP-125 replacement the
// wallet signs and the guardian co-signs), a block mines the replacement, and the deposit completes
// under the replacement's txid while the original's is gone from the chain.
import { test, expect } from '../support/fixtures';
import { connectDevnetWallet, openDrawer, openVault } from '../support/journey';

const txidOf = async (link: { getAttribute(name: string): Promise<string | null> }) =>
  /\/tx\/([0-9a-f]{64})$/.exec((await link.getAttribute('href')) ?? '')?.[1] ?? '';

test('a stuck deposit is sped up and completes with the replacement', async ({
  page,
  baseURL,
  devnet,
  checkA11y,
  snap,
}) => {
  test.info().setTimeout(180_000);
  await connectDevnetWallet(page, devnet);
  await openVault(page, devnet, { name: 'Hurry', btc: '0.01', unit: '100' });

  const drawer = await openDrawer(page, 'Deposit');
  await drawer.locator('input[inputmode="decimal"]').first().fill('0.002');
  await drawer.getByRole('radio', { name: /^Slow/ }).check();
  await drawer.getByRole('button', { name: 'Deposit', exact: true }).click();
  await expect(page.getByText('Finalizing...').first()).toBeVisible();
  const original = await txidOf(page.getByRole('link', { name: /^View transaction/ }).first());
  expect(original).toMatch(/^[0-9a-f]{64}$/);
  const sent = (await (await fetch(`${baseURL}/esplora/tx/${original}`)).json()) as {
    fee: number;
    weight: number;
  };

  await page.getByRole('button', { name: 'Speed up' }).first().click();
  // The drawer's title follows its step (Speed up, Processing transaction, Transaction Sped Up).
  const dialog = page.getByRole('dialog');
  await expect(dialog.getByRole('heading', { name: 'Speed up' })).toBeVisible();
  const rate = (term: string) => dialog.getByText(term, { exact: true }).locator('xpath=..');
  await expect(rate('New fee rate')).toContainText('sat/vB');
  const current = Number(/([\d.]+) sat\/vB/.exec(await rate('Current fee rate').innerText())![1]);
  const next = Number(/([\d.]+) sat\/vB/.exec(await rate('New fee rate').innerText())![1]);
  expect(current).toBeLessThan(2);
  expect(next).toBeGreaterThan(current);
  await checkA11y(page);
  await snap(page, '40-speed-up-review');

  await dialog.getByRole('button', { name: 'Speed up', exact: true }).click();
  await expect(dialog.getByRole('heading', { name: 'Transaction Sped Up' }).last()).toBeVisible();
  await expect(dialog.getByRole('list', { name: 'Progress' }).getByText('✓')).toHaveCount(4);
  const replacement = await txidOf(dialog.getByRole('link', { name: /^View transaction/ }));
  expect(replacement).toMatch(/^[0-9a-f]{64}$/);
  expect(replacement).not.toBe(original);
  await checkA11y(page);
  await snap(page, '41-speed-up-sent');
  await dialog.getByRole('button', { name: 'Close' }).last().click();

  // The mempool holds the replacement alone, paying more; the original is gone.
  expect((await fetch(`${baseURL}/esplora/tx/${original}`)).status).toBe(404);
  const paid = (await (await fetch(`${baseURL}/esplora/tx/${replacement}`)).json()) as {
    fee: number;
    status: { confirmed: boolean };
  };
  expect(paid.status.confirmed).toBe(false);
  expect(paid.fee).toBeGreaterThan(sent.fee);
  const explorer = await (await fetch(`${baseURL}/explorer/tx/${original}`)).text();
  expect(explorer).toContain(`/explorer/tx/${replacement}`);

  await devnet.mine(1);
  await expect(page.getByText('Finalizing...')).toHaveCount(0, { timeout: 60_000 });
  await expect(page.getByText('0.012 BTC').first()).toBeVisible({ timeout: 60_000 });
  // Completed, under the replacement's txid, and one deposit in the history, not two.
  const banner = page.locator('.banner');
  await expect(banner.getByText('Completed')).toBeVisible();
  expect(await txidOf(banner.getByRole('link', { name: /^View transaction/ }))).toBe(replacement);
  const table = page.getByRole('region', { name: 'Vault transactions', exact: true });
  await expect(table.getByRole('row', { name: /Deposit BTC/ })).toHaveCount(1);
  if (!test.info().project.name.startsWith('phone'))
    await expect(table.getByRole('row', { name: /Deposit BTC.*Completed/ })).toBeVisible();
  await checkA11y(page);
  await snap(page, '42-speed-up-confirmed');
});

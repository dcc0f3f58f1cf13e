// The chain service goes down (the devnet's control) while a signed deposit is on its way;
// the tracker says nothing was sent and offers to send the same signed request again, which goes
// through once the network is back (the web test resend.test.tsx shows nothing is built or signed
// again).
import { test, expect } from '../support/fixtures';
import { connectDevnetWallet, openDrawer, openVault } from '../support/journey';

async function setChain(baseURL: string, available: boolean) {
  const res = await fetch(`${baseURL}/api/devnet/chain`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ available }),
  });
  expect(res.ok).toBe(true);
}

test('a deposit the network never took is sent again as it was', async ({
  page,
  devnet,
  baseURL,
  checkA11y,
  snap,
}) => {
  await connectDevnetWallet(page, devnet);
  await openVault(page, devnet, { name: 'Resend', btc: '0.02', unit: '300' });
  const drawer = await openDrawer(page, 'Deposit');
  await drawer.locator('input[inputmode="decimal"]').first().fill('0.001');
  try {
    await setChain(baseURL!, false);
    await drawer.getByRole('button', { name: 'Deposit', exact: true }).click();
    const tracker = page.getByRole('dialog');
    await expect(tracker.getByRole('alert')).toContainText(/network/i);
    await expect(tracker.getByText(/nothing was sent/)).toBeVisible();
    const again = tracker.getByRole('button', { name: 'Send again' });
    await expect(again).toBeVisible();
    await checkA11y(page);
    await snap(page, '64-send-again');
    await setChain(baseURL!, true);
    await again.click();
  } finally {
    await setChain(baseURL!, true);
  }
  await expect(page.getByText('BTC Deposit Submitted').first()).toBeVisible();
  await expect(page.getByText('Finalizing...').first()).toBeVisible();
  await devnet.mine(1);
  await expect(page.getByText('Finalizing...')).toHaveCount(0, { timeout: 60_000 });
});

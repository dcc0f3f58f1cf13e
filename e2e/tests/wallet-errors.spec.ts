// The wallet failures people meet most (wallet issue, Done when): no extension installed, the user
// declining the connection, and a wallet on the wrong network, each with the right message.
import { test, expect } from '../support/fixtures';
import { injectWallet } from '../support/wallets/inject';

const PROMPT = 'Select your preffered wallet to open a vault.';

test('a browser without extensions is offered to get Xverse and Unisat', async ({
  page,
  checkA11y,
  snap,
}) => {
  await page.goto('/');
  await page.getByRole('button', { name: 'Connect Wallet' }).first().click();
  await expect(page.getByText(PROMPT)).toBeVisible();
  for (const name of ['Xverse', 'Unisat']) {
    const get = page.getByRole('link', { name: `Get ${name}` });
    await expect(get).toBeVisible();
    await expect(get).toHaveAttribute('href', /^https:\/\//);
    await expect(page.getByRole('button', { name: `Connect ${name}` })).toBeHidden();
  }
  await checkA11y(page);
  await snap(page, '60-no-extensions');
});

for (const { kind, name } of [
  { kind: 'unisat', name: 'Unisat' },
  { kind: 'xverse', name: 'Xverse' },
  { kind: 'leather', name: 'Leather' },
] as const) {
  test(`declining the ${name} prompt leaves the app as it was, without an error`, async ({
    page,
    checkA11y,
    snap,
  }) => {
    await injectWallet(page, kind, undefined, { rejectFirst: true });
    await page.goto('/');
    await page.getByRole('button', { name: 'Connect Wallet' }).first().click();
    await page.getByRole('button', { name: `Connect ${name}` }).click();
    // A rejection is the user's choice: no error banner, and connecting again works.
    const picker = page.getByRole('dialog');
    await expect(picker.getByRole('button', { name: `Connect ${name}` })).toBeEnabled();
    await expect(picker.getByRole('alert')).toHaveCount(0);
    await checkA11y(page);
    await snap(page, `61-${kind}-declined`);
    await picker.getByRole('button', { name: `Connect ${name}` }).click();
    await expect(page.getByText(PROMPT)).toBeHidden();
    await expect(page.getByRole('button', { name: /^Connect Wallet$/ })).toHaveCount(0);
  });
}

test('a Unisat wallet on mainnet is told so and can switch to the app network', async ({
  page,
  checkA11y,
  snap,
}) => {
  await injectWallet(page, 'unisat', undefined, { unisatChain: 'BITCOIN_MAINNET' });
  await page.goto('/');
  await page.getByRole('button', { name: 'Connect Wallet' }).first().click();
  await page.getByRole('button', { name: 'Connect Unisat' }).click();
  const alert = page.getByRole('dialog').getByRole('alert');
  await expect(alert).toContainText(/Your wallet is on .+, but this app runs on .+\./);
  await checkA11y(page);
  await snap(page, '62-wrong-network');
  // Nothing of the mainnet account reached the app: no address in the header.
  await expect(page.getByRole('button', { name: /^Wallet (bc1|tb1)/ })).toHaveCount(0);
  await alert.getByRole('button', { name: 'Switch network' }).click();
  await expect(page.getByText(PROMPT)).toBeHidden();
  await expect(page.getByRole('button', { name: /^Wallet tb1/ }).first()).toBeVisible();
  await checkA11y(page);
  await snap(page, '63-switched');
});

// Sign-in through the extensions people use: each signs the community area's challenge through its
// own API (Unisat 'bip322-simple', Xverse sats-connect BIP322, Leather signMessage with paymentType
// p2wpkh) and the server verifies it with bip322-js. The devnet wallet's sign-in, Telegram and the
// referrals are in community.spec.ts.
import { test, expect } from '../support/fixtures';
import { injectWallet } from '../support/wallets/inject';

for (const { kind, name } of [
  { kind: 'unisat', name: 'Unisat' },
  { kind: 'xverse', name: 'Xverse' },
  { kind: 'leather', name: 'Leather' },
] as const) {
  test(`a ${name} user registers by signing in through the extension`, async ({ page }) => {
    const wallet = await injectWallet(page, kind);
    await page.goto('/missions');
    await page
      .getByRole('region', { name: 'Missions' })
      .getByRole('button', { name: 'Connect Wallet' })
      .click();
    await page.getByRole('button', { name: `Connect ${name}` }).click();
    const missions = page.getByRole('region', { name: 'Missions' });
    await missions.getByRole('button', { name: 'Register' }).click();
    await expect(missions.getByRole('button', { name: 'Register' })).toBeHidden();
    const session = await page.evaluate(async () => (await fetch('/api/auth/session')).json());
    expect(session).toEqual({ address: wallet.satsAddress });
  });
}

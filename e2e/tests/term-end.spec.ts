// How a vault ends at its term, on its dashboard (docs/protocol.md, "Leaving without the
// guardians"), with the real server and its devnet, whose term is 40 blocks and grace 20.
// Settled: a vault left alone past its term is settled by the guardians (the server's settlement
// job); its dashboard says what was repaid, where the rest went, and disables every action.
// Exited: the guardians lose the chain (the devnet's control takes the chain service away from
// the server) for the whole term and grace, so nothing settles the vault; its owner signs the exit
// with the vault key alone and sends it through the devnet's own esplora, as the /exit page would.
// Once the chain is back, the server's block watcher finds the mined exit: the dashboard says the
// vault is closed, where the collateral went and by which transaction, and disables every action.
import type { Page } from '@playwright/test';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { hex } from '@scure/base';
import { p2wpkh, TEST_NETWORK } from '@scure/btc-signer';
import { pubSchnorr } from '@scure/btc-signer/utils.js';
import { deriveDevnetKeys } from '../../apps/web/src/wallet/devnet-key';
import { DEVNET_KEY_STORAGE } from '../../apps/web/src/wallet/devnet-storage';
import { ExitEsplora, planExit, readVaultExit, signExit } from '../../packages/bitcoin/src/index';
import { BUTTON_REASONS } from '../../packages/protocol/src/buttons';
import { test, expect, type Devnet } from '../support/fixtures';
import { connectDevnetWallet, openVault } from '../support/journey';

/** The devnet's term (DEVNET_TERM_CONFIG): the settlement 41 blocks after the quote's tip. */
const TERM_AND_A_BLOCK = 41;

async function setChain(baseURL: string, available: boolean) {
  const res = await fetch(`${baseURL}/api/devnet/chain`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ available }),
  });
  expect(res.ok).toBe(true);
}

/** The vault the dashboard shows, as /api/vaults serves it to this wallet. */
async function vaultOf(baseURL: string, pubkey: string) {
  const res = await fetch(`${baseURL}/api/vaults/by-pubkey/${pubkey}`);
  expect(res.ok).toBe(true);
  return (await res.json()) as { vault_id: string; status: string; exit_height: number };
}

/** This browser's devnet wallet: its secret, vault key and payment address. */
async function walletOf(page: Page) {
  const secret = hex.decode(
    (await page.evaluate((key) => window.localStorage.getItem(key), DEVNET_KEY_STORAGE))!,
  );
  const { vaultKey } = deriveDevnetKeys(secret);
  return {
    vaultKey,
    vaultPubkey: hex.encode(pubSchnorr(vaultKey)),
    address: p2wpkh(secp256k1.getPublicKey(secret, true), TEST_NETWORK).address!,
  };
}

/** Every action is disabled, each button telling why (its accessible description). */
async function expectActionsDisabled(page: Page, reason: string) {
  for (const name of ['Deposit', 'Withdraw', 'Borrow', 'Repay']) {
    const button = page.getByRole('button', { name, exact: true }).first();
    await expect(button).toBeDisabled();
    await expect(button).toHaveAccessibleDescription(reason);
  }
}

async function mineTo(devnet: Devnet, baseURL: string, height: number) {
  const tip = Number(await (await fetch(`${baseURL}/esplora/blocks/tip/height`)).text());
  if (height > tip) await devnet.mine(height - tip);
}

test('a vault left alone is settled at its term, and its dashboard says so', async ({
  page,
  devnet,
  baseURL,
  checkA11y,
  snap,
}) => {
  await connectDevnetWallet(page, devnet);
  await openVault(page, devnet, { name: 'Left alone', btc: '0.02', unit: '300' });
  await devnet.mine(TERM_AND_A_BLOCK);
  const banner = page.getByTestId('term-settled');
  await expect(banner).toBeVisible({ timeout: 60_000 });
  await expect(page.getByText('Settled at its term', { exact: true })).toBeVisible();
  await expect(banner).toContainText('The guardians settled this vault at its term');
  await expect(banner).toContainText(
    /No action renewed its term, so its debt of 300\.00 UNIT was repaid from its collateral at \$95,000 with the 15% liquidation tax, and the rest of its 0\.02 BTC, less the network fee, was sent to your vault key's own address\./,
  );
  // Sent, the settlement waits for a block like any transaction; mined, the vault holds nothing.
  await devnet.mine(1);
  await expectActionsDisabled(page, BUTTON_REASONS.settled);
  await expect(page.getByText('Settled at Term').first()).toBeAttached();
  const { vaultPubkey } = await walletOf(page);
  expect((await vaultOf(baseURL!, vaultPubkey)).status).toBe('settled');
  // It holds nothing: its gauge has no marker to read.
  await expect(page.getByTestId('gauge-marker')).toHaveCount(0);
  await checkA11y(page);
  await snap(page, '72-term-settled');
});

test('a vault its owner left by the exit is closed, and its dashboard says where it went', async ({
  page,
  devnet,
  baseURL,
  checkA11y,
  snap,
}) => {
  await connectDevnetWallet(page, devnet);
  await openVault(page, devnet, { name: 'Left by exit', btc: '0.02', unit: '300' });
  const owner = await walletOf(page);
  const vault = await vaultOf(baseURL!, owner.vaultPubkey);
  let exitTxid = '';
  try {
    // The guardians lose the chain past the term and the grace: nothing settles the vault.
    await setChain(baseURL!, false);
    await mineTo(devnet, baseURL!, vault.exit_height);
    // The owner's exit, from the chain alone, signed with the vault key alone.
    const chain = new ExitEsplora(`${baseURL}/esplora`);
    const facts = await readVaultExit(chain, vault.vault_id);
    const plan = planExit({
      vaultPubkey: pubSchnorr(owner.vaultKey),
      exitHeight: facts.record.term!.exitHeight,
      exitBranch: facts.record.term!.exitBranch,
      utxo: facts.utxo,
      toAddress: owner.address,
      feeRate: 2,
      tipHeight: facts.tipHeight,
      network: TEST_NETWORK,
    });
    const sent = await fetch(`${baseURL}/esplora/tx`, {
      method: 'POST',
      body: signExit(plan, owner.vaultKey).hex,
    });
    exitTxid = await sent.text();
    expect(sent.ok, exitTxid).toBe(true);
    await devnet.mine(1);
  } finally {
    await setChain(baseURL!, true);
  }
  // The chain is back: the next block's pass finds the mined exit.
  await devnet.mine(1);
  await expect.poll(async () => (await vaultOf(baseURL!, owner.vaultPubkey)).status).toBe('exited');
  // The open dashboard hears of it (the server announces the closed vault): no reload.
  const banner = page.getByTestId('vault-exited');
  await expect(banner).toBeVisible({ timeout: 30_000 });
  await expect(page.getByText('Closed by its exit', { exact: true })).toBeVisible();
  await expect(banner).toContainText('This vault was closed by its exit');
  await expect(banner).toContainText(
    new RegExp(
      `its 0\\.02 BTC, less the network fee, went to the address ${owner.address} in transaction ${exitTxid}\\. Its debt of 300\\.00 UNIT was not repaid`,
    ),
  );
  await expect(banner.getByRole('link', { name: /^View transaction/ })).toHaveAttribute(
    'href',
    new RegExp(`/tx/${exitTxid}$`),
  );
  await expectActionsDisabled(page, BUTTON_REASONS.exited);
  // Its history's last record: the exit, the whole collateral.
  await expect(page.getByRole('row').filter({ hasText: 'Exited by Owner' }).first()).toContainText(
    '0.02 BTC',
  );
  await expect(page.getByTestId('gauge-marker')).toHaveCount(0);
  await checkA11y(page);
  await snap(page, '73-vault-exited');
});

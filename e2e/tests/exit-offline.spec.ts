// The way out with our server down (docs/protocol.md, "Leaving without the guardians"): no app
// server and no guardian run. The built web app is served as plain files by a static server the
// test starts, the devnet runs on its own as a network (`npm run devnet -- serve`), and the owner
// reaches its esplora directly from /exit. A vault of layout 2 of this browser's devnet wallet is
// read there; before its exit height the page says when it opens and refuses the exit (and the
// chain refuses the same exit signed around the page, non-final); once the
// chain is there the exit is built, signed by the devnet wallet, sent to that esplora, and the
// whole vault less the fee is on chain at the owner's address.
import { resolve } from 'node:path';
import { test as base, expect } from '@playwright/test';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { hex } from '@scure/base';
import { p2wpkh, TEST_NETWORK } from '@scure/btc-signer';
import { pubSchnorr } from '@scure/btc-signer/utils.js';
import { deriveDevnetKeys } from '../../apps/web/src/wallet/devnet-key';
import { DEVNET_KEY_STORAGE } from '../../apps/web/src/wallet/devnet-storage';
import { expectNoSeriousA11yViolations } from '../support/axe';
import {
  openLayout2Vault,
  prematureExit,
  startNetwork,
  type NetworkProcess,
} from '../support/exit/network';
import { serveStatic, type StaticSite } from '../support/exit/static-site';

const VAULT_SATS = 150_000n;
const BLOCKS_TO_EXIT = 6;

const test = base.extend<object, { network: NetworkProcess; site: StaticSite }>({
  network: [
    async ({}, use) => {
      const network = await startNetwork();
      await use(network);
      await network.stop();
    },
    { scope: 'worker', timeout: 90_000 },
  ],
  site: [
    async ({}, use) => {
      const site = await serveStatic(resolve(import.meta.dirname, '../../apps/web/dist'));
      await use(site);
      await site.close();
    },
    { scope: 'worker' },
  ],
});

interface EsploraTx {
  vout: { scriptpubkey_address?: string; value: number }[];
  weight: number;
  status: { confirmed: boolean };
}

test('an owner leaves a vault through its exit with only static files and the chain', async ({
  page,
  network,
  site,
}, info) => {
  // This browser's devnet wallet: the secret the page keeps, and the vault key derived from it.
  const secret = sha256(new TextEncoder().encode(`exit journey owner ${info.project.name}`));
  const { vaultKey } = deriveDevnetKeys(secret);
  const owner = p2wpkh(secp256k1.getPublicKey(secret, true), TEST_NETWORK).address!;
  const vault = await openLayout2Vault(network, pubSchnorr(vaultKey), VAULT_SATS, BLOCKS_TO_EXIT);
  await page.addInitScript(
    ([key, value]) => window.localStorage.setItem(key!, value!),
    [DEVNET_KEY_STORAGE, hex.encode(secret)],
  );
  const chainCalls: string[] = [];
  page.on('request', (req) => {
    if (req.url().startsWith(network.url)) chainCalls.push(req.url());
  });

  await page.goto(`${site.url}/exit`);
  await expect(page.getByRole('heading', { name: 'Leave a vault without us' })).toBeVisible();
  await expectNoSeriousA11yViolations(page);
  await page.getByLabel('Esplora URL of the chain').fill(`${network.url}/esplora`);
  await page.getByLabel('Vault id or vault address').fill(vault.txid);
  await page.getByRole('button', { name: 'Read the vault' }).click();

  // Before its height: when it opens, at which block and around when, and the exit refused.
  const heading = page.getByRole('heading', { name: '2. The vault on the chain' });
  await expect(heading).toBeFocused();
  const tip = await network.tipHeight();
  await expect(page.getByText(/^The exit is not open yet\./)).toHaveText(
    new RegExp(
      `^The exit is not open yet\\. It opens at block ${vault.exitHeight}, in ${vault.exitHeight - tip} blocks: around \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d UTC if blocks keep coming every 10 minutes\\.$`,
    ),
  );
  await expect(page.getByText('0.0015 BTC (150,000 sats)')).toBeVisible();
  await expect(page.getByText(`Exit: your key alone from block ${vault.exitHeight}`)).toBeVisible();
  await expect(page.getByLabel(/^Vault key/)).toHaveValue(hex.encode(pubSchnorr(vaultKey)));
  await page.getByLabel('Send the whole vault to').fill(owner);
  await page.getByRole('button', { name: 'Build the exit' }).click();
  await expect(page.getByRole('alert')).toHaveText(
    `The exit opens at block ${vault.exitHeight} and the chain is at block ${tip}: wait ${vault.exitHeight - tip} more blocks and try again.`,
  );
  await expect(page.getByText(/^The exit sends/)).toHaveCount(0);
  await expectNoSeriousA11yViolations(page);
  // The chain refuses it too: the same exit signed around the page's check is not final yet.
  const early = await network.broadcast(await prematureExit(network, vault, vaultKey, owner));
  expect(early).toMatchObject({ ok: false, text: expect.stringMatching(/non-final/) });

  // The chain reaches the exit height: building reads the height again and the exit opens.
  await network.mine(vault.exitHeight - tip);
  await page.getByRole('button', { name: 'Build the exit' }).click();
  const summary = page.getByText(/^The exit sends/);
  await expect(summary).toBeFocused();
  await expect(page.getByText(/^The exit is open: since block/)).toBeVisible();
  const fee = BigInt(/the fee is (\d+) sats/.exec((await summary.textContent()) ?? '')![1]!);
  await expect(summary).toHaveText(
    `The exit sends ${(VAULT_SATS - fee).toLocaleString('en-US')} sats to ${owner}; the fee is ${fee} sats (${fee / 2n} vB at 2 sat/vB). Nothing is signed yet.`,
  );
  await expectNoSeriousA11yViolations(page);
  await page
    .getByRole('button', { name: "Sign with this browser's devnet wallet and send" })
    .click();
  const sent = page.getByRole('status');
  await expect(sent).toHaveText(/^The exit was sent to the chain: transaction [0-9a-f]{64}\./);
  await expect(sent).toBeFocused();
  const txid = /[0-9a-f]{64}/.exec((await sent.textContent()) ?? '')![0];
  await expectNoSeriousA11yViolations(page);

  // On the chain: one output, the whole vault less the fee, at the owner's address, confirmed.
  await network.mine(1);
  const exit = await network.esplora<EsploraTx>(`/tx/${txid}`);
  expect(exit.status.confirmed).toBe(true);
  expect(exit.vout).toEqual([
    expect.objectContaining({ scriptpubkey_address: owner, value: Number(VAULT_SATS - fee) }),
  ]);
  expect(fee).toBe(2n * BigInt(Math.ceil(exit.weight / 4)));
  const spend = await network.esplora<{ spent: boolean; txid: string }>(
    `/tx/${vault.txid}/outspend/0`,
  );
  expect(spend).toMatchObject({ spent: true, txid });
  // Read again, the page says the vault is gone and by which transaction.
  await page.getByRole('button', { name: 'Read the vault' }).click();
  await expect(page.getByRole('alert')).toHaveText(
    `The vault was closed by transaction ${txid}: there is nothing left to take out.`,
  );
  await expect(page.getByText(/^The exit is open/)).toHaveCount(0);

  // Nothing of ours was asked: the static files, and the chain's esplora alone.
  expect(site.requests.filter((path) => path.startsWith('/api'))).toEqual([]);
  expect(chainCalls.length).toBeGreaterThan(0);
  expect(chainCalls.every((url) => url.startsWith(`${network.url}/esplora/`))).toBe(true);
});

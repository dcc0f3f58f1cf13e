// The deployment rehearsal: one process plays the network (the devnet in its
// network-only mode, the four exchanges' tickers, and a proxy in front of the chain); another runs
// the product as an operator runs it on signet (README "Operate on signet": NETWORK=signet, keys
// from files, PRICE_SOURCE=feeds, RUNES_API=ord), its treasury funded with the operator's own
// commands run as the README says. A user with an extension wallet (Unisat-shaped, signing for
// real) opens a vault, borrows while the network loses the broadcast's answer, meets a 20 s outage
// with a clear message, repays after it, is liquidated when the exchanges' price falls, and a
// second user repossesses the vault; every step is read back from the network's own esplora.
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { randomBytes } from 'node:crypto';
import { test, expect, type Page } from '@playwright/test';
import Database from 'better-sqlite3';
import { hexToBytes } from '@noble/hashes/utils.js';
import { p2tr, TEST_NETWORK } from '@scure/btc-signer';
import { guardianKeysOf } from '../../apps/server/src/store/keys';
import { injectWallet } from '../support/wallets/inject';
import {
  envFile,
  freePort,
  operator,
  startNetwork,
  startProduct,
  type NetworkProcess,
  type ProductProcess,
} from '../support/rehearsal/deployment';

// Several times the network's 3 s time-out (CHAIN_TIMEOUT below): long enough to be told, and to
// open the second user's wallet meanwhile.
const OUTAGE_MS = 20_000;

async function call<T>(url: string, body?: unknown): Promise<T> {
  const res = await fetch(url, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  if (!res.ok) throw new Error(`${url}: ${res.status} ${await res.text()}`);
  return (await res.json()) as T;
}

/** The txid of the newest "View transaction" link on the page (it opens EXPLORER_URL/tx/<txid>). */
async function linkedTxid(page: Page): Promise<string> {
  const href = await page
    .getByRole('link', { name: /^View transaction/ })
    .last()
    .getAttribute('href');
  return /\/tx\/([0-9a-f]{64})/.exec(href ?? '')![1]!;
}

test('an operator deploys on signet; a user borrows, repays, is liquidated and repossessed through it', async ({
  browser,
}, info) => {
  test.skip(info.project.name !== 'desktop', 'one journey, one set of processes: desktop only');
  info.setTimeout(300_000);
  const dir = mkdtempSync(join(tmpdir(), 'unit-rehearsal-'));
  let net: NetworkProcess | undefined;
  let product: ProductProcess | undefined;
  try {
    // README step 1: the guardian key. The network's issuer premines its UNIT to the treasury
    // that key derives (as someone holding an existing rune would send it).
    const guardianKey = randomBytes(32).toString('hex');
    // The server's own derivation of the treasury key from it.
    const { treasuryPubkey } = guardianKeysOf(guardianKey);
    const treasury = p2tr(hexToBytes(treasuryPubkey), undefined, TEST_NETWORK).address!;
    // The oracle's key file (step 1) is written while the network starts: it needs no service.
    const envPath = join(dir, 'signet.env');
    envFile(envPath, {});
    const oracleKey = operator(envPath, ['oracle-key', join(dir, 'oracle.key')]).done;
    net = await startNetwork(join(dir, 'network'), treasury);
    await oracleKey;
    const { network, proxy, control } = net;
    const mine = (blocks = 1) => call(`${network}/api/devnet/mine`, { blocks });
    const fund = (address: string, sats: number) =>
      call(`${network}/api/devnet/faucet`, { address, sats });
    /** Read back from the network itself, never through the proxy or the product. */
    const confirmed = async (txid: string) =>
      (await call<{ confirmed: boolean }>(`${network}/esplora/tx/${txid}/status`)).confirmed;

    // Step 2: the environment file every command sources.
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const env = envFile(envPath, {
      NETWORK: 'signet',
      PUBLIC_ORIGIN: url,
      HOST: '127.0.0.1',
      PORT: String(port),
      DATA_DIR: join(dir, 'data'),
      GUARDIAN_KEY: guardianKey,
      ORACLE_KEY_FILE: join(dir, 'oracle.key'),
      ESPLORA_URL: `${proxy}/esplora`,
      MEMPOOL_URL: `${proxy}/mempool`,
      ORDINALS_URL: `${proxy}/ordinals`,
      RUNES_API: 'ord',
      RUNES_URL: `${proxy}/ord`,
      EXPLORER_URL: `${proxy}/explorer`,
      PRICE_SOURCE: 'feeds',
      PRICE_FEEDS: net.feeds.join(','),
      // The exchanges are local: a fresh price every second, and a network silent for 3 s is down.
      PRICE_TICK: '1000',
      CHAIN_TIMEOUT: '3000',
    });

    // Step 3: the treasury's address, then signet BTC sent to it for fees.
    const status = await operator(env.file, ['treasury']).done;
    expect(status[0]).toBe(`treasury address  ${treasury}`);
    await fund(treasury, 5_000_000);
    await mine(1);

    // Step 4: the network's existing UNIT rune, checked.
    const used = await operator(env.file, ['use', '1:1']).done;
    expect(used.at(-1)).toBe("set UNIT_RUNE_ID=1:1 in the server's environment");
    const runeId = '1:1';
    env.add('UNIT_RUNE_ID', runeId);

    // Step 5: outputs for concurrent requests, confirmed on the network.
    const split = await operator(env.file, ['split', '4', '--fee-rate', '2']).done;
    const splitTxid = /^split ([0-9a-f]{64}): 4 outputs/.exec(split.at(-1)!)![1]!;
    await mine(1);
    expect(await confirmed(splitTxid)).toBe(true);
    // Read back from the network's ord: the treasury's UNIT in the four outputs of the split.
    const ordJson = <T>(path: string) =>
      fetch(`${network}/ord/${path}`, { headers: { accept: 'application/json' } }).then(
        (r) => r.json() as Promise<T>,
      );
    const held = await ordJson<{ outputs: string[] }>(`address/${treasury}`);
    const splitOutputs = held.outputs.filter((o) => o.startsWith(splitTxid));
    const unitAt = await Promise.all(
      splitOutputs.map((o) =>
        ordJson<{ runes: Record<string, { amount: number }> }>(`output/${o}`).then(
          (out) => Object.values(out.runes)[0]?.amount ?? 0,
        ),
      ),
    );
    expect(unitAt.filter((amount) => amount > 0)).toHaveLength(4);
    expect(unitAt.reduce((sum, amount) => sum + amount, 0)).toBe(100_000_000_000);

    // Step 6: npm start.
    product = await startProduct(env.file, url);
    const config = await call<{ network: string; unitRuneId: string }>(`${url}/api/config`);
    expect(config).toMatchObject({ network: 'signet', unitRuneId: runeId });
    // No devnet controls on signet.
    expect((await fetch(`${url}/api/devnet/mine`, { method: 'POST' })).ok).toBe(false);

    // The user: a Unisat-shaped extension holding signet coins.
    const context = await browser.newContext({
      baseURL: url,
      viewport: { width: 1440, height: 900 },
    });
    const page = await context.newPage();
    const wallet = await injectWallet(page, 'unisat');
    await fund(wallet.satsAddress, 100_000_000);
    await mine(1);
    await page.goto('/');
    await page.getByRole('button', { name: 'Connect Wallet' }).first().click();
    await page.getByRole('button', { name: 'Connect Unisat' }).click();
    await page.getByRole('button', { name: 'Create Vault' }).first().click();
    await page.getByLabel('Vault name').fill('Rehearsal');
    await page.getByRole('button', { name: 'Continue' }).click();
    const amounts = page.locator('.sheet input[inputmode="decimal"]');
    await expect(page.getByText(/Available: 0\.99/)).toBeVisible();
    await amounts.nth(0).fill('0.01');
    await amounts.nth(1).fill('300');
    await page.getByRole('button', { name: 'Preview' }).click();
    await page.getByRole('button', { name: 'Confirm' }).click();
    await expect(page.getByRole('link', { name: /^View transaction/ })).toBeVisible();
    const openTxid = await linkedTxid(page);
    await mine(1);
    // Read as on a real network: the product's esplora poll (5 s) sees the block, then the page;
    // as long as the later block waits here, for a machine busy with the other worker's journey.
    await expect(page.getByRole('heading', { name: 'Vault Successfully Created!' })).toBeVisible({
      timeout: 30_000,
    });
    expect(await confirmed(openTxid)).toBe(true);
    await page.getByRole('button', { name: 'Go to Vault' }).click();
    await expect(page.getByText('In wallet: 300.00 UNIT')).toBeVisible();

    // Borrow 200 UNIT while the network takes the broadcast and loses its answer: the guardian
    // finds it on the chain and the user sees it go through.
    await call(`${control}/drop-next-post`, {});
    let drawer = await openAction(page, 'Borrow');
    await drawer.locator('input[inputmode="decimal"]').first().fill('200');
    await drawer.getByRole('button', { name: 'Borrow', exact: true }).click();
    await expect(page.getByText('Vault Borrow Submitted!').first()).toBeVisible();
    expect((await call<{ dropped: number }>(`${control}/state`)).dropped).toBe(1);
    const borrowTxid = await linkedTxid(page);
    await mine(1);
    await expect(page.getByText('Finalizing...')).toHaveCount(0, { timeout: 30_000 });
    expect(await confirmed(borrowTxid)).toBe(true);
    // 500 UNIT owed on 0.01 BTC: liquidation at 500 x 1.35 / 0.01 = $67,500.00.
    await expect(page.getByText('$67,500.00').first()).toBeVisible();

    // 20 s of a network that refuses every connection: the user is told, nothing is stuck.
    await call(`${control}/outage`, { ms: OUTAGE_MS });
    const outageEnds = Date.now() + OUTAGE_MS;
    drawer = await openAction(page, 'Repay');
    await drawer.locator('input[inputmode="decimal"]').first().fill('100');
    await drawer.getByRole('button', { name: 'Repay', exact: true }).click();
    await expect(page.getByText(/Bitcoin network .*not answering/).first()).toBeVisible();
    await expect(page.getByText(/Unknown error|Failed to fetch|internal/i)).toHaveCount(0);
    await snap(page, '40-signet-network-down');
    // Meanwhile a second user gets coins (from the network itself, which is up).
    const otherContext = await browser.newContext({
      baseURL: url,
      viewport: { width: 1440, height: 900 },
    });
    const claimant = await otherContext.newPage();
    const claimantWallet = await injectWallet(claimant, 'unisat');
    await fund(claimantWallet.satsAddress, 100_000_000);
    await mine(1);
    // The network answers again: the same vault repays.
    await expect
      .poll(
        () =>
          fetch(`${proxy}/esplora/blocks/tip/height`).then(
            (r) => r.ok,
            () => false,
          ),
        {
          timeout: OUTAGE_MS + 10_000,
          intervals: [500],
        },
      )
      .toBe(true);
    expect(Date.now()).toBeGreaterThanOrEqual(outageEnds - 1_000);
    await page.keyboard.press('Escape');
    drawer = await openAction(page, 'Repay');
    await drawer.locator('input[inputmode="decimal"]').first().fill('100');
    await drawer.getByRole('button', { name: 'Repay', exact: true }).click();
    await expect(page.getByText('UNIT Repayment Submitted').first()).toBeVisible();
    const repayTxid = await linkedTxid(page);
    await mine(1);
    await expect(page.getByText('Finalizing...')).toHaveCount(0, { timeout: 30_000 });
    expect(await confirmed(repayTxid)).toBe(true);
    // 400 UNIT owed: liquidation at $54,000.00.
    await expect(page.getByText('$54,000.00').first()).toBeVisible();

    // The second user opens a vault of their own.
    await claimant.goto('/');
    await claimant.getByRole('button', { name: 'Connect Wallet' }).first().click();
    await claimant.getByRole('button', { name: 'Connect Unisat' }).click();
    await claimant.getByRole('button', { name: 'Create Vault' }).first().click();
    await claimant.getByLabel('Vault name').fill('Claimant');
    await claimant.getByRole('button', { name: 'Continue' }).click();
    const claimantAmounts = claimant.locator('.sheet input[inputmode="decimal"]');
    await expect(claimant.getByText(/Available: 0\.99/)).toBeVisible();
    await claimantAmounts.nth(0).fill('0.5');
    await claimantAmounts.nth(1).fill('100');
    await claimant.getByRole('button', { name: 'Preview' }).click();
    await claimant.getByRole('button', { name: 'Confirm' }).click();
    await expect(claimant.getByRole('link', { name: /^View transaction/ })).toBeVisible();
    await mine(1);
    await expect(
      claimant.getByRole('heading', { name: 'Vault Successfully Created!' }),
    ).toBeVisible();

    // The exchanges' price falls to $50,000: 0.01 BTC x 50,000 / 400 UNIT = 125%, liquidated.
    await call(`${control}/price`, { usd: '50000' });
    await page.reload();
    await expect(page.getByRole('dialog', { name: 'Vault in Liquidation' })).toBeVisible({
      timeout: 30_000,
    });
    await page.keyboard.press('Escape');
    const outcome = page.getByRole('region', { name: 'What happened to this vault' });
    await expect(outcome).toContainText('the oracle price of BTC fell to $50,000.00');
    const liquidationTxid = /\/tx\/([0-9a-f]{64})/.exec(
      (await outcome.getByRole('link', { name: /^View transaction/ }).getAttribute('href')) ?? '',
    )![1]!;

    // The second user repossesses it from /liquidations.
    await claimant.goto('/liquidations');
    const row = claimant.getByRole('row', { name: /Rehearsal/ });
    await row.getByRole('button', { name: 'Repossess' }).click();
    const confirm = claimant.getByRole('dialog');
    await expect(confirm.getByText('0.0085 BTC')).toBeVisible();
    await confirm.getByRole('button', { name: 'Repossess', exact: true }).click();
    await expect(
      confirm.getByRole('heading', { name: 'Liquidation Claim Submitted' }).last(),
    ).toBeVisible();
    const claimTxid = await linkedTxid(claimant);
    await confirm.getByRole('button', { name: 'Close' }).last().click();
    await mine(1);
    await expect(row.getByText('Repossessed')).toBeVisible({ timeout: 30_000 });
    expect(await confirmed(liquidationTxid)).toBe(true);
    expect(await confirmed(claimTxid)).toBe(true);
    await claimant.goto('/');
    await expect(claimant.getByText('0.5085 BTC').first()).toBeVisible();

    // The owner's page: the liquidation and the claim, nothing pending.
    await page.reload();
    const table = page.getByRole('region', { name: 'Vault transactions', exact: true });
    await expect(table.getByRole('row', { name: /Vault Liquidation/ })).toBeVisible();
    await expect(table.getByRole('row', { name: /Liquidation Claim/ })).toBeVisible();
    await expect(page.getByText('Finalizing...')).toHaveCount(0);
    await snap(page, '41-signet-repossessed');
    // The same page on a phone: nothing scrolls sideways.
    await page.setViewportSize({ width: 390, height: 844 });
    await expect(table.getByRole('row', { name: /Liquidation Claim/ })).toBeVisible();
    // The page reflows on the resize (the chart redraws at its new width on the next frames).
    await expect
      .poll(() => page.evaluate(() => document.documentElement.scrollWidth))
      .toBeLessThanOrEqual(390);
    await snap(page, '41-signet-repossessed', 'phone');
    await otherContext.close();
    await context.close();
    // Nothing stuck in the product's own records: no vault lock held, no request left between
    // its checks and the network, the vault repossessed.
    const db = new Database(join(dir, 'data', 'unit.db'), { readonly: true });
    try {
      expect(db.prepare('select count(*) as n from guardian_locks').get()).toEqual({ n: 0 });
      const states = db.prepare('select distinct state from guardian_requests').pluck().all();
      expect(states.filter((state) => state !== 'broadcast' && state !== 'failed')).toEqual([]);
      expect(db.prepare("select status from vaults where name = 'Rehearsal'").pluck().get()).toBe(
        'repossessed',
      );
    } finally {
      db.close();
    }
    // No secret in what the product printed.
    const printed = product.output();
    expect(printed).not.toContain(/GUARDIAN_KEY=(\w+)/.exec(readFileSync(env.file, 'utf8'))![1]!);
  } catch (error) {
    if (product) console.error(`--- product ---\n${product.output().slice(-6000)}`);
    if (net) console.error(`--- network ---\n${net.output().slice(-3000)}`);
    throw error;
  } finally {
    await product?.stop();
    await net?.stop();
    rmSync(dir, { recursive: true, force: true });
  }
});

/** A full-page screenshot under e2e/screenshots/<project>/, for a person to look at. */
async function snap(page: Page, name: string, project = 'desktop') {
  const dir = resolve(import.meta.dirname, '../screenshots', project);
  mkdirSync(dir, { recursive: true });
  await page.screenshot({ path: resolve(dir, `${name}.png`), fullPage: true });
}

/** Opens an action drawer from the dashboard card button. */
async function openAction(page: Page, action: string) {
  await page.getByRole('button', { name: action, exact: true }).first().click();
  const drawer = page.getByRole('dialog');
  await expect(drawer.getByRole('heading', { name: action })).toBeVisible();
  return drawer;
}

// The liquidation engine and repossession on a real devnet: a price drop under a vault's threshold
// marks it liquidated on the next tick; another user claims it through the liquidation leaf with
// the oracle's revealed secret, taking on its debt and paying the 15% tax to the treasury.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  getLiquidation,
  getVaultByPubkey,
  listLiquidations,
  vaultHistory,
  type VaultRow,
} from '../../src/store';
import { call, codeOf, startHarness, type Harness, type TestWallet } from './harness';

describe('liquidation and repossession', () => {
  let h: Harness;
  let alice: TestWallet;
  let bob: TestWallet;
  let carol: TestWallet;
  let aliceVault: VaultRow;
  beforeAll(async () => {
    h = await startHarness();
    alice = await h.wallet('alice');
    bob = await h.wallet('bob');
    carol = await h.wallet('carol');
    // Alice at 161%: threshold 79,650.00 USD. Bob and Carol well collateralised.
    await call(h.guardian, 'vault.open', (await alice.open(1_000_000n, 59_000n)).request);
    await call(h.guardian, 'vault.open', (await bob.open(5_000_000n, 10_000n)).request);
    await call(h.guardian, 'vault.open', (await carol.open(5_000_000n, 10_000n)).request);
    aliceVault = (await getVaultByPubkey(h.store.db, alice.vaultPubkey))!;
    expect(aliceVault.threshold_cents).toBe(7_965_000);
  });
  afterAll(() => h.close());

  it('leaves vaults alone while the price stays above their threshold', async () => {
    const point = await h.oracle.setPrice(7_965_001);
    expect(await h.guardian.onPriceTick(point.priceCents, point.timestamp)).toEqual([]);
    expect((await getVaultByPubkey(h.store.db, alice.vaultPubkey))?.status).toBe('active');
  });

  it('refuses to repossess a vault that is not liquidated', async () => {
    const { request } = await bob.repossess(alice.vaultPubkey, aliceVault.vault_id);
    expect(await codeOf(call(h.guardian, 'vault.repossess', request))).toBe('not_liquidated');
  });

  it('liquidates a vault once the price reaches its threshold, with history l', async () => {
    h.clock.now += 10;
    const point = await h.oracle.setPrice(7_900_000);
    expect(await h.guardian.onPriceTick(point.priceCents, point.timestamp)).toEqual([
      aliceVault.vault_id,
    ]);
    // A second tick at the same price records nothing twice.
    expect(await h.guardian.onPriceTick(point.priceCents, point.timestamp)).toEqual([]);

    expect((await getVaultByPubkey(h.store.db, alice.vaultPubkey))?.status).toBe('liquidated');
    const [latest] = await vaultHistory(h.store.db, aliceVault.vault_id);
    expect(latest).toMatchObject({
      action: 'l',
      liquidation_threshold: 7_965_000,
      vault_amount: 1_000_000,
      amount_borrowed: 59_000,
    });
    expect(latest?.liquidation_hash).toMatch(/^[0-9a-f]{40}$/);
    const listed = await listLiquidations(h.store.db);
    expect(listed.map((l) => [l.vault_id, l.status])).toEqual([
      [aliceVault.vault_id, 'liquidated'],
    ]);
  });

  it('refuses a liquidated vault any further action by its owner', async () => {
    expect(await codeOf(alice.reserve('borrow', 1_000))).toBe('vault_liquidated');
  });

  it('lets another user repossess it: debt and collateral move, 15% goes to the treasury', async () => {
    const bobBefore = (await getVaultByPubkey(h.store.db, bob.vaultPubkey))!;
    const { request } = await bob.repossess(alice.vaultPubkey, aliceVault.vault_id);
    const { vault_txid } = await call<{ vault_txid: string }>(
      h.guardian,
      'vault.repossess',
      request,
    );
    const tax = 150_000; // 15% of 1,000,000 sats
    const bobAfter = (await getVaultByPubkey(h.store.db, bob.vaultPubkey))!;
    expect(bobAfter).toMatchObject({
      vault_txid,
      btc_locked: bobBefore.btc_locked + 1_000_000 - tax,
      unit_borrowed: bobBefore.unit_borrowed + 59_000,
      status: 'active',
    });
    const taxOutput = await h.chain.output(vault_txid, 1);
    expect(taxOutput).toMatchObject({ value: tax, address: h.guardian.treasuryAddress });
    expect((await h.chain.output(aliceVault.vault_txid, 0))?.spent).toBe(true);

    const [bobLatest] = await vaultHistory(h.store.db, bobAfter.vault_id);
    expect(bobLatest).toMatchObject({ action: 'x', transaction_id: vault_txid, unit_amt: 59_000 });
    const [aliceLatest] = await vaultHistory(h.store.db, aliceVault.vault_id);
    expect(aliceLatest).toMatchObject({
      action: 'x',
      transaction_id: vault_txid,
      btc_amt: 1_000_000,
      vault_amount: 0,
    });
    // The claimed vault holds nothing any more: its owner's dashboard shows 0 BTC and 0 UNIT.
    expect(await getVaultByPubkey(h.store.db, alice.vaultPubkey)).toMatchObject({
      status: 'repossessed',
      btc_locked: 0,
      unit_borrowed: 0,
    });
    expect(await getLiquidation(h.store.db, aliceVault.vault_id)).toMatchObject({
      status: 'repossessed',
      claimed_by: bobAfter.vault_id,
      claim_txid: vault_txid,
    });
  });

  it('refuses a second claim on a vault already repossessed', async () => {
    // Carol's draft spends Alice's old vault output, now gone; the guardian stops at the status.
    const { request } = await carol.repossess(alice.vaultPubkey, aliceVault.vault_id);
    expect(await codeOf(call(h.guardian, 'vault.repossess', request))).toBe('not_liquidated');
  });
});

// A vault's whole life through the guardian on a real devnet: open, deposit, borrow, repay,
// withdraw, each validated, co-signed, accepted by the devnet's node checks and stored.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getGuardianRequest, getVaultByPubkey, vaultHistory } from '../../src/store';
import { DEVNET_TERM_CONFIG, networkFeeSats, outputScriptBytes, termSizing } from '@unit/protocol';
import { call, FEE_RATE, recorder, startHarness, type Harness, type TestWallet } from './harness';

describe('guardian vault lifecycle on the devnet', () => {
  let h: Harness;
  let alice: TestWallet;
  beforeAll(async () => {
    h = await startHarness();
    alice = await h.wallet('alice');
  });
  afterAll(() => h.close());

  it('opens a vault: issues UNIT to the runes address and stores the vault with history o', async () => {
    const { request } = await alice.open(1_000_000n, 50_000n);
    const ctx = recorder();
    const result = await call<{ issue_txid: string; vault_txid: string; vault_id: string }>(
      h.guardian,
      'vault.open',
      request,
      ctx,
    );
    expect(result.issue_txid).toBe(result.vault_txid);
    expect(result.vault_id).toBe(result.vault_txid);
    expect(ctx.steps).toEqual([2, 3, 4, 5]);

    const vault = await getVaultByPubkey(h.store.db, alice.vaultPubkey);
    expect(vault).toMatchObject({
      vault_id: result.vault_id,
      name: 'alice vault',
      creation_account: alice.paymentAddress,
      runes_account: alice.runesAddress,
      btc_locked: 1_000_000,
      unit_borrowed: 50_000,
      vault_vout: 0,
      status: 'active',
      threshold_cents: request.quote.th,
      stamp: request.quote.ts,
      // Layout 2: the row keeps the term the output commits to, the devnet's 40 + 20 blocks.
      settle_height: request.quote.term!.settle_height,
      exit_height: request.quote.term!.settle_height + 20,
    });
    const onChain = await h.chain.output(result.vault_txid, 0);
    expect(onChain?.value).toBe(1_000_000);
    const unit = await h.chain.unitOutputs(alice.runesAddress);
    expect(unit.map((o) => o.unit_amount)).toEqual([50_000]);

    const history = await vaultHistory(h.store.db, result.vault_id);
    expect(history).toHaveLength(1);
    expect(history[0]).toMatchObject({
      action: 'o',
      btc_amt: 1_000_000,
      unit_amt: 50_000,
      vault_amount: 1_000_000,
      amount_borrowed: 50_000,
      oracle_price: 95_000,
      transaction_id: result.vault_txid,
      utxo: `${result.vault_txid}:0`,
      confirmed: 0,
    });
    const row = await getGuardianRequest(h.store.db, request.nonce);
    expect(row).toMatchObject({ state: 'broadcast', txid: result.vault_txid });
  });

  it('marks history confirmed once the transaction is mined', async () => {
    const vault = (await getVaultByPubkey(h.store.db, alice.vaultPubkey))!;
    expect(await h.guardian.onBlock()).toEqual([]);
    await h.devnet.mine(1);
    expect(await h.guardian.onBlock()).toEqual([vault.vault_txid]);
    const [record] = await vaultHistory(h.store.db, vault.vault_id);
    expect(record?.confirmed).toBe(1);
  });

  it('deposits BTC into the vault, keeping the debt', async () => {
    const { request } = await alice.deposit(500_000n);
    const result = await call<{ vault_txid: string }>(h.guardian, 'vault.deposit', request);
    const vault = (await getVaultByPubkey(h.store.db, alice.vaultPubkey))!;
    expect(vault).toMatchObject({
      vault_txid: result.vault_txid,
      btc_locked: 1_500_000,
      unit_borrowed: 50_000,
    });
    expect((await h.chain.output(result.vault_txid, 0))?.value).toBe(1_500_000);
    const [latest] = await vaultHistory(h.store.db, vault.vault_id);
    expect(latest).toMatchObject({ action: 'd', btc_amt: 500_000, vault_amount: 1_500_000 });
  });

  it('borrows more UNIT: one transaction issues it and records the debt', async () => {
    const { request } = await alice.borrow(20_000n);
    const result = await call<{ issue_txid: string; vault_txid: string }>(
      h.guardian,
      'vault.borrow',
      request,
    );
    expect(result.issue_txid).toBe(result.vault_txid);
    const vault = (await getVaultByPubkey(h.store.db, alice.vaultPubkey))!;
    expect(vault.unit_borrowed).toBe(70_000);
    const unit = await h.chain.unitOutputs(alice.runesAddress);
    expect(unit.filter((o) => !o.spent).reduce((s, o) => s + o.unit_amount, 0)).toBe(70_000);
  });

  it('repays UNIT to the treasury and lowers the debt', async () => {
    const { request } = await alice.repay(30_000n);
    const result = await call<{ repay_txid: string; vault_txid: string }>(
      h.guardian,
      'vault.repay',
      request,
    );
    expect(result.repay_txid).toBe(result.vault_txid);
    const vault = (await getVaultByPubkey(h.store.db, alice.vaultPubkey))!;
    expect(vault.unit_borrowed).toBe(40_000);
    const held = (await h.chain.unitOutputs(alice.runesAddress)).filter((o) => !o.spent);
    expect(held.reduce((s, o) => s + o.unit_amount, 0)).toBe(40_000);
    const [latest] = await vaultHistory(h.store.db, vault.vault_id);
    expect(latest).toMatchObject({ action: 'r', unit_amt: 30_000, amount_borrowed: 40_000 });
  });

  it('withdraws BTC to the sats address with the fee taken from the vault', async () => {
    const before = (await getVaultByPubkey(h.store.db, alice.vaultPubkey))!;
    const { request, built } = await alice.withdraw(300_000n);
    const result = await call<{ vault_txid: string }>(h.guardian, 'vault.withdraw', request);
    const vault = (await getVaultByPubkey(h.store.db, alice.vaultPubkey))!;
    expect(vault.btc_locked).toBe(before.btc_locked - 300_000 - Number(built.fee));
    // The fee the web drawer previews, from the address alone, is the one the guardian accepted
    // and the chain holds (the preview must equal the result).
    const previewed = networkFeeSats({
      action: 'withdraw',
      paymentInputs: 0,
      feeRate: FEE_RATE,
      withdrawalScriptBytes: outputScriptBytes(alice.paymentAddress),
      // Layout 2 as /api/config tells the web: the record's term, the vault's deeper update leaf.
      ...termSizing({ vaultTerm: DEVNET_TERM_CONFIG }),
    });
    expect(vault.btc_locked).toBe(before.btc_locked - 300_000 - Number(previewed));
    const paid = await h.chain.output(result.vault_txid, 1);
    expect(paid).toMatchObject({ value: 300_000, address: alice.paymentAddress });
    const history = await vaultHistory(h.store.db, vault.vault_id);
    expect(history.map((r) => r.action)).toEqual(['w', 'r', 'b', 'd', 'o']);
  });
});

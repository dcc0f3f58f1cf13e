// The planner against figures worked out by hand: what each action reserves, the state after it, the
// threshold its quote is asked for, and its transaction's outputs and fee to the sat.
//
// Weights (flows/vsize.ts): overhead 42; inputs: vault update 430, vault liquidation 387, treasury
// key path 230, P2WPKH 272; outputs (8 + 1 + script length) x 4: P2TR 172, P2WPKH 124, an update's
// state record (65 bytes) 296, an opening's (98) 428, a runestone issuing or returning 500_000 or
// 50_000 or 40_000 hundredths of rune 1:0 (12 bytes: 6a 5d 09, pointer 16 02, body 00, 01 00,
// 3-byte amount, output 01) 84. Fee rate 3 sat/vB, fee = ceil(weight / 4) x 3.
import { Transaction } from '@scure/btc-signer';
import { UNIT_POSTAGE_SATS } from '@unit/protocol';
import { describe, expect, it } from 'vitest';
import { VAULT_TX_OPTS } from '../flows/vault-tx';
import {
  guardPub,
  network,
  paymentUtxo,
  treasuryScript,
  treasuryUtxo,
  unitRuneId,
  vaultPub,
  vaultUtxo,
  wallet,
} from '../flows/test-fixtures';
import { buildVaultRequest, planVaultRequest, quotedRequest, type VaultRequestInput } from './plan';

const feeRate = 3;
const postage = BigInt(UNIT_POSTAGE_SATS);
const quote = { price_cents: 9_500_000, ts: 1_700_000_100, threshold_hash: '11'.repeat(20) };
const draft = { nonce: new Uint8Array(16).fill(7), expiresAt: 1_700_000_400 };
const keys = { vaultPubkey: vaultPub, guardPubkey: guardPub, network };

function outputsOf(psbt: Uint8Array) {
  const tx = Transaction.fromPSBT(psbt, VAULT_TX_OPTS);
  return Array.from({ length: tx.outputsLength }, (_, i) => tx.getOutput(i).amount!);
}

function run(input: Omit<VaultRequestInput, 'wallet' | 'feeRate'>, pieces = {}) {
  const plan = planVaultRequest({ ...input, wallet, feeRate });
  const psbt = buildVaultRequest(plan, quotedRequest(plan, { quote, draft, keys }), {
    utxos: [paymentUtxo(10_000_000n)],
    treasuryScript,
    unitRuneId,
    ...pieces,
  });
  return { plan, psbt, outputs: outputsOf(psbt.built.psbt) };
}

describe('planVaultRequest and buildVaultRequest', () => {
  it('open: reserves the borrow, records the deposit and debt, issues from the treasury', () => {
    const { plan, psbt, outputs } = run(
      { action: 'open', btc: 2_000_000n, unit: 500_000n },
      { treasury: treasuryUtxo(), label: 'My vault' },
    );
    expect(plan.reserve).toEqual({ unit_amount: 500_000, vault_action: 'open' });
    expect(plan.needs).toEqual({
      vault: false,
      payments: true,
      unitUtxos: false,
      accountPostage: true,
    });
    expect(plan.after).toEqual({ btcSats: 2_000_000n, unitCents: 500_000n });
    // 500_000 x 135 x 1_000_000 / 2_000_000
    expect(plan.thresholdCents).toBe(33_750_000);
    // 42 + 230 + 272 + 172 x 3 + 84 + 428 + 124 = 1696 -> 424 vB
    expect(psbt.built.vsize).toBe(424);
    expect(psbt.built.fee).toBe(1_272n);
    // 10_000_000 - 2_000_000 - 10_000 postage - 1_272 (the treasury's 10_000 comes back)
    expect(outputs).toEqual([2_000_000n, postage, 10_000n, 0n, 0n, 7_988_728n]);
    expect(psbt.signers).toEqual([{ index: 1, key: 'payment' }]);
    expect(psbt.payload).toEqual({
      borrow_amount: 500_000,
      deposit_amount: 2_000_000,
      vault_label: 'My vault',
      tx_feerate: 3,
    });
  });

  it('deposit: reserves nothing and adds the deposit to the vault', () => {
    const { plan, psbt, outputs } = run({
      action: 'deposit',
      btc: 1_000_000n,
      unit: 0n,
      vault: vaultUtxo(5_000_000n, 100_000n),
    });
    expect(plan.reserve).toBeNull();
    expect(plan.after).toEqual({ btcSats: 6_000_000n, unitCents: 100_000n });
    // 100_000 x 135 x 1_000_000 / 6_000_000
    expect(plan.thresholdCents).toBe(2_250_000);
    // 42 + 430 + 272 + 172 + 296 + 124 = 1336 -> 334 vB
    expect(psbt.built.fee).toBe(1_002n);
    // the vault's 5_000_000 + 1_000_000; change 10_000_000 - 1_000_000 - 1_002
    expect(outputs).toEqual([6_000_000n, 0n, 8_998_998n]);
    expect(psbt.signers).toEqual([
      { index: 0, key: 'vault' },
      { index: 1, key: 'payment' },
    ]);
  });

  it('withdraw: the fee comes out of the vault, so the state after counts it', () => {
    const { plan, psbt, outputs } = run({
      action: 'withdraw',
      btc: 1_000_000n,
      unit: 0n,
      vault: vaultUtxo(5_000_000n, 100_000n),
    });
    expect(plan.reserve).toBeNull();
    expect(plan.needs.payments).toBe(false);
    // 42 + 430 + 172 + 124 + 296 = 1064 -> 266 vB x 3
    expect(plan.vaultFeeSats).toBe(798n);
    expect(plan.after).toEqual({ btcSats: 3_999_202n, unitCents: 100_000n });
    // 100_000 x 135 x 1_000_000 / 3_999_202, floored
    expect(plan.thresholdCents).toBe(3_375_673);
    expect(psbt.built.fee).toBe(798n);
    expect(outputs).toEqual([3_999_202n, 1_000_000n, 0n]);
    expect(psbt.signers).toEqual([{ index: 0, key: 'vault' }]);
  });

  it('borrow: reserves the UNIT and adds it to the debt', () => {
    const { plan, psbt, outputs } = run(
      { action: 'borrow', btc: 0n, unit: 50_000n, vault: vaultUtxo(5_000_000n, 100_000n) },
      { treasury: treasuryUtxo() },
    );
    expect(plan.reserve).toEqual({ unit_amount: 50_000, vault_action: 'borrow' });
    expect(plan.after).toEqual({ btcSats: 5_000_000n, unitCents: 150_000n });
    // 150_000 x 135 x 1_000_000 / 5_000_000
    expect(plan.thresholdCents).toBe(4_050_000);
    // 42 + 430 + 230 + 272 + 172 x 3 + 84 + 296 + 124 = 1994 -> 499 vB
    expect(psbt.built.fee).toBe(1_497n);
    expect(outputs).toEqual([5_000_000n, postage, 10_000n, 0n, 0n, 9_988_503n]);
    expect(psbt.signers).toEqual([
      { index: 0, key: 'vault' },
      { index: 2, key: 'payment' },
    ]);
  });

  it('repay: reserves the treasury address, spends the UNIT and lowers the debt', () => {
    const unitOutput = { ...paymentUtxo(postage, wallet.runesScript), unitAmount: 100_000n };
    const { plan, psbt, outputs } = run(
      { action: 'repay', btc: 0n, unit: 40_000n, vault: vaultUtxo(5_000_000n, 100_000n) },
      { unitUtxos: [unitOutput] },
    );
    expect(plan.reserve).toEqual({ unit_amount: 40_000, vault_action: 'repay' });
    expect(plan.needs.unitUtxos).toBe(true);
    expect(plan.after).toEqual({ btcSats: 5_000_000n, unitCents: 60_000n });
    // 60_000 x 135 x 1_000_000 / 5_000_000
    expect(plan.thresholdCents).toBe(1_620_000);
    // 42 + 430 + 230 (UNIT, P2TR key path) + 272 + 172 x 3 + 84 + 296 + 124 = 1994 -> 499 vB
    expect(psbt.built.fee).toBe(1_497n);
    // the vault unchanged, UNIT's postage to the treasury, the rest of the UNIT back to the wallet
    expect(outputs).toEqual([5_000_000n, postage, postage, 0n, 0n, 9_988_503n]);
    expect(psbt.signers).toEqual([
      { index: 0, key: 'vault' },
      { index: 1, key: 'runes' },
      { index: 2, key: 'payment' },
    ]);
  });

  it('repossess: takes the liquidated collateral less the 15% tax and its debt', () => {
    const own = vaultUtxo(5_000_000n, 100_000n);
    const liquidated = vaultUtxo(2_000_000n, 1_000_000n, 5_000_000n);
    const { plan, psbt, outputs } = run(
      { action: 'repossess', btc: 0n, unit: 0n, vault: own, liquidated },
      { liquidatedVaultId: 'v'.repeat(8) },
    );
    expect(plan.reserve).toBeNull();
    // 5_000_000 + 2_000_000 - 300_000 tax; 100_000 + 1_000_000
    expect(plan.after).toEqual({ btcSats: 6_700_000n, unitCents: 1_100_000n });
    // 1_100_000 x 135 x 1_000_000 / 6_700_000, floored
    expect(plan.thresholdCents).toBe(22_164_179);
    // 42 + 387 + 430 + 272 + 172 x 2 + 296 + 124 = 1895 -> 474 vB
    expect(psbt.built.fee).toBe(1_422n);
    // the payment pays the fee alone: 10_000_000 - 1_422
    expect(outputs).toEqual([6_700_000n, 300_000n, 0n, 9_998_578n]);
    expect(psbt.signers).toEqual([
      { index: 1, key: 'vault' },
      { index: 2, key: 'payment' },
    ]);
  });

  it('refuses an action on a vault it was not given', () => {
    expect(() =>
      planVaultRequest({ action: 'deposit', btc: 1n, unit: 0n, wallet, feeRate }),
    ).toThrow('this request needs the vault');
  });
});

import { hex } from '@scure/base';
import { Transaction } from '@scure/btc-signer';
import { equalBytes, pubSchnorr } from '@scure/btc-signer/utils.js';
import {
  defaultPaymentInputs,
  estimateVsize,
  networkFeeSats,
  UNIT_POSTAGE_SATS,
  type VaultAction,
} from '@unit/protocol';
import { describe, expect, it } from 'vitest';
import { decodeRunestone, parseStateRecordScript, verifyInputs, type Prevout } from '../core';
import {
  buildBorrowPsbt,
  buildDepositPsbt,
  buildOpenPsbt,
  buildRepayPsbt,
  buildRepossessPsbt,
  buildWithdrawPsbt,
  repossessionTax,
  withdrawFee,
  type BuiltVaultTx,
  type VaultStateFields,
} from './builders';
import {
  addLiquidationWitness,
  cosignVaultInput,
  finalize,
  signTreasuryInput,
  signUserInputs,
} from './sign';
import {
  keys,
  nestedWallet,
  newVault,
  paidFrom,
  paymentUtxo,
  stateFields,
  treasuryScript,
  treasuryUtxo,
  txid,
  unitRuneId,
  vaultPub,
  vaultUtxo,
  wallet,
} from './test-fixtures';
import { VaultTxError, VAULT_TX_OPTS } from './vault-tx';

const postage = BigInt(UNIT_POSTAGE_SATS);
const feeRate = 3;

function prevouts(psbt: Uint8Array): Prevout[] {
  const tx = Transaction.fromPSBT(psbt, VAULT_TX_OPTS);
  return Array.from({ length: tx.inputsLength }, (_, i) => {
    const utxo = tx.getInput(i).witnessUtxo!;
    return { script: utxo.script, amount: utxo.amount };
  });
}

/** Signs as the wallet would: the vault leaf with the vault key, UNIT with the runes key, the rest with the payment key. */
function signAsWallet(built: BuiltVaultTx, vaultKey = keys.vault): Uint8Array {
  let psbt = built.psbt;
  const inputs = prevouts(psbt);
  for (const index of built.signInputs.user) {
    const script = inputs[index]!.script;
    const key = equalBytes(script, wallet.runesScript)
      ? keys.runes
      : script.length === 34 && !equalBytes(script, wallet.satsScript)
        ? vaultKey
        : keys.payment;
    psbt = signUserInputs(psbt, key, [index]);
  }
  return psbt;
}

/** User, guardian and treasury signatures, finalised: the raw transaction the guardian broadcasts. */
function signAll(built: BuiltVaultTx, opts: { vaultKey?: Uint8Array; secret?: Uint8Array } = {}) {
  let psbt = signAsWallet(built, opts.vaultKey);
  for (const index of built.signInputs.guardian) {
    const isLiquidation = !built.signInputs.user.includes(index);
    psbt = isLiquidation
      ? addLiquidationWitness(psbt, index, { secret: opts.secret!, guardianKey: keys.guardian })
      : cosignVaultInput(psbt, keys.guardian, index);
  }
  for (const index of built.signInputs.treasury)
    psbt = signTreasuryInput(psbt, keys.treasury, index);
  const rawHex = finalize(psbt);
  const tx = Transaction.fromRaw(hex.decode(rawHex), VAULT_TX_OPTS);
  return { rawHex, tx, prevouts: prevouts(built.psbt) };
}

function outputsOf(tx: Transaction) {
  return Array.from({ length: tx.outputsLength }, (_, i) => tx.getOutput(i)) as {
    script: Uint8Array;
    amount: bigint;
  }[];
}

function expectValidSpend(built: BuiltVaultTx, signed: ReturnType<typeof signAll>) {
  expect(verifyInputs(signed.rawHex, signed.prevouts)).toEqual({ ok: true });
  const paid =
    signed.prevouts.reduce((s, p) => s + p.amount, 0n) -
    outputsOf(signed.tx).reduce((s, o) => s + o.amount, 0n);
  expect(paid).toBe(built.fee);
  expect(built.fee).toBeGreaterThanOrEqual(BigInt(Math.ceil(feeRate * signed.tx.vsize)));
  expect(built.vsize).toBeGreaterThanOrEqual(signed.tx.vsize);
}

describe('buildOpenPsbt', () => {
  it('issues UNIT to the runes address and locks the deposit in a new vault, signed by wallet and treasury', () => {
    const treasury = treasuryUtxo();
    const built = buildOpenPsbt({
      wallet,
      utxos: [paymentUtxo(300_000n), paymentUtxo(40_000n)],
      feeRate,
      state: stateFields,
      newVault,
      depositAmount: 250_000n,
      borrowAmount: 50_000n,
      treasury,
      unitRuneId,
    });
    expect(built.signInputs).toEqual({ user: [1], guardian: [], treasury: [0] });
    const signed = signAll(built);
    expectValidSpend(built, signed);
    const outs = outputsOf(signed.tx);
    expect(outs).toHaveLength(6);
    expect(outs[0]).toEqual({ script: newVault.script, amount: 250_000n });
    expect(outs[1]).toEqual({ script: wallet.runesScript, amount: postage });
    expect(outs[2]).toEqual({ script: treasuryScript, amount: treasury.value });
    expect(decodeRunestone(outs)).toEqual({
      runestone: { edicts: [{ id: unitRuneId, amount: 50_000n, output: 1 }], pointer: 2 },
    });
    expect(parseStateRecordScript(outs[4]!.script)).toEqual({
      action: 'o',
      unitDebt: 50_000n,
      vaultSats: 250_000n,
      ...stateFields,
    });
    expect(outs[5]).toEqual({ script: wallet.satsScript, amount: built.change });
    expect(built.change).toBeGreaterThan(0n);
  });
});

describe('buildDepositPsbt', () => {
  it('adds the deposit to the vault, spending the update leaf with vault and guardian keys', () => {
    const vault = vaultUtxo(200_000n, 60_000n);
    const built = buildDepositPsbt({
      ...paidFrom([paymentUtxo(150_000n)], feeRate),
      vault,
      depositAmount: 100_000n,
    });
    expect(built.signInputs).toEqual({ user: [0, 1], guardian: [0], treasury: [] });
    const signed = signAll(built);
    expectValidSpend(built, signed);
    const outs = outputsOf(signed.tx);
    expect(outs).toHaveLength(3);
    expect(outs[0]).toEqual({ script: newVault.script, amount: 300_000n });
    expect(parseStateRecordScript(outs[1]!.script)).toMatchObject({
      action: 'd',
      unitDebt: 60_000n,
      vaultSats: 300_000n,
    });
    expect(outs[2]!.script).toEqual(wallet.satsScript);
  });

  it('pays from a P2SH-P2WPKH address as Xverse does', () => {
    const vault = vaultUtxo(200_000n, 0n);
    const built = buildDepositPsbt({
      ...paidFrom([paymentUtxo(150_000n, nestedWallet.satsScript)], feeRate, nestedWallet),
      vault,
      depositAmount: 100_000n,
    });
    expectValidSpend(built, signAll(built));
  });

  it('leaves the change out when it would be dust, giving the remainder to the fee', () => {
    const vault = vaultUtxo(200_000n, 0n);
    const probe = buildDepositPsbt({
      ...paidFrom([paymentUtxo(500_000n)], feeRate),
      vault,
      depositAmount: 100_000n,
    });
    // One UTXO worth the deposit, the fee without change and 300 sats: change would be dust.
    const exactFeeNoChange = probe.fee - BigInt(31 * feeRate);
    const built = buildDepositPsbt({
      ...paidFrom([paymentUtxo(100_000n + exactFeeNoChange + 300n)], feeRate),
      vault,
      depositAmount: 100_000n,
    });
    expect(built.change).toBe(0n);
    const signed = signAll(built);
    expect(outputsOf(signed.tx)).toHaveLength(2);
    expect(built.fee).toBe(exactFeeNoChange + 300n);
    expectValidSpend(built, signed);
  });

  it('refuses a wallet that cannot pay the deposit and fee', () => {
    const build = () =>
      buildDepositPsbt({
        ...paidFrom([paymentUtxo(100_000n)], feeRate),
        vault: vaultUtxo(200_000n, 0n),
        depositAmount: 100_000n,
      });
    expect(build).toThrow(VaultTxError);
    expect(build).toThrow(/needs/);
  });
});

describe('buildBorrowPsbt', () => {
  it('issues UNIT from the treasury and records the larger debt', () => {
    const vault = vaultUtxo(400_000n, 60_000n);
    const treasury = treasuryUtxo();
    const built = buildBorrowPsbt({
      ...paidFrom([paymentUtxo(50_000n)], feeRate),
      vault,
      treasury,
      borrowAmount: 20_000n,
      unitRuneId,
    });
    expect(built.signInputs).toEqual({ user: [0, 2], guardian: [0], treasury: [1] });
    const signed = signAll(built);
    expectValidSpend(built, signed);
    const outs = outputsOf(signed.tx);
    expect(outs.map((o) => o.amount).slice(0, 3)).toEqual([400_000n, postage, treasury.value]);
    expect(decodeRunestone(outs)).toEqual({
      runestone: { edicts: [{ id: unitRuneId, amount: 20_000n, output: 1 }], pointer: 2 },
    });
    expect(parseStateRecordScript(outs[4]!.script)).toMatchObject({
      action: 'b',
      unitDebt: 80_000n,
    });
    expect(outs[5]!.script).toEqual(wallet.satsScript);
  });
});

describe('buildRepayPsbt', () => {
  it('sends UNIT back to the treasury from the runes address and lowers the debt', () => {
    const vault = vaultUtxo(400_000n, 60_000n);
    const unitUtxo = {
      txid: txid(),
      vout: 1,
      value: postage,
      script: wallet.runesScript,
      unitAmount: 70_000n,
    };
    const built = buildRepayPsbt({
      ...paidFrom([paymentUtxo(50_000n)], feeRate),
      vault,
      repayAmount: 25_000n,
      unitUtxos: [unitUtxo],
      treasuryScript,
      unitRuneId,
    });
    expect(built.signInputs).toEqual({ user: [0, 1, 2], guardian: [0], treasury: [] });
    const signed = signAll(built);
    expectValidSpend(built, signed);
    const outs = outputsOf(signed.tx);
    expect(outs).toHaveLength(6);
    expect(outs[1]).toEqual({ script: treasuryScript, amount: postage });
    expect(outs[2]).toEqual({ script: wallet.runesScript, amount: postage });
    expect(decodeRunestone(outs)).toEqual({
      runestone: { edicts: [{ id: unitRuneId, amount: 25_000n, output: 1 }], pointer: 2 },
    });
    expect(parseStateRecordScript(outs[4]!.script)).toMatchObject({
      action: 'r',
      unitDebt: 35_000n,
    });
  });

  it('refuses to repay more than the debt', () => {
    expect(() =>
      buildRepayPsbt({
        ...paidFrom([paymentUtxo(50_000n)], feeRate),
        vault: vaultUtxo(400_000n, 10_000n),
        repayAmount: 25_000n,
        unitUtxos: [],
        treasuryScript,
        unitRuneId,
      }),
    ).toThrow(/exceeds the UNIT debt/);
  });
});

describe('buildWithdrawPsbt', () => {
  it('pays the withdrawal from the vault, the fee too, with no wallet input', () => {
    const vault = vaultUtxo(400_000n, 60_000n);
    const params = {
      wallet,
      feeRate,
      state: stateFields,
      newVault,
      vault,
      withdrawAmount: 150_000n,
    };
    const built = buildWithdrawPsbt(params);
    expect(built.signInputs).toEqual({ user: [0], guardian: [0], treasury: [] });
    const signed = signAll(built);
    expectValidSpend(built, signed);
    const fee = withdrawFee(params);
    expect(built.fee).toBe(fee);
    const outs = outputsOf(signed.tx);
    expect(outs).toHaveLength(3);
    expect(outs[0]).toEqual({ script: newVault.script, amount: 250_000n - fee });
    expect(outs[1]).toEqual({ script: wallet.satsScript, amount: 150_000n });
    expect(parseStateRecordScript(outs[2]!.script)).toMatchObject({
      action: 'w',
      vaultSats: 250_000n - fee,
      unitDebt: 60_000n,
    });
  });
});

describe('the withdraw fee the drawer previews', () => {
  // The vault pays the withdraw's fee, so the vault after it is shown before signing: the
  // protocol's estimate, given the withdrawal's script, must be the fee the real PSBT pays.
  it("is the built transaction's fee for P2WPKH, nested P2SH and P2TR withdrawals, at any rate", () => {
    const taproot = { ...wallet, satsScript: wallet.runesScript };
    // Network mode: the record's price quorum commitment makes it 33 bytes longer.
    const committed = { ...stateFields, quorumCommitment: new Uint8Array(32) };
    for (const w of [wallet, nestedWallet, taproot])
      for (const [rate, quorumCommitment] of [1, 2.5, 7, 33].flatMap((r) => [
        [r, false] as const,
        [r, true] as const,
      ])) {
        const built = buildWithdrawPsbt({
          wallet: w,
          feeRate: rate,
          state: quorumCommitment ? committed : stateFields,
          newVault,
          vault: vaultUtxo(400_000n, 60_000n),
          withdrawAmount: 150_000n,
        });
        expect(built.fee).toBe(
          networkFeeSats({
            action: 'withdraw',
            paymentInputs: 0,
            feeRate: rate,
            withdrawalScriptBytes: w.satsScript.length,
            quorumCommitment,
          }),
        );
      }
  });
});

describe('buildRepossessPsbt', () => {
  it("moves a liquidated vault into the claimant's vault through the liquidation leaf, taxing 15%", () => {
    const claimantPub = pubSchnorr(keys.claimantVault);
    const liquidated = vaultUtxo(300_000n, 200_000n, 9_000_000n, vaultPub);
    const claimant = vaultUtxo(500_000n, 10_000n, 5_000_000n, claimantPub);
    const built = buildRepossessPsbt({
      ...paidFrom([paymentUtxo(40_000n)], feeRate),
      vault: claimant,
      liquidated,
      treasuryScript,
    });
    expect(built.signInputs).toEqual({ user: [1, 2], guardian: [0, 1], treasury: [] });
    const signed = signAll(built, { vaultKey: keys.claimantVault, secret: liquidated.secret });
    expectValidSpend(built, signed);
    const tax = repossessionTax(300_000n);
    expect(tax).toBe(45_000n);
    const outs = outputsOf(signed.tx);
    expect(outs[0]).toEqual({ script: newVault.script, amount: 800_000n - tax });
    expect(outs[1]).toEqual({ script: treasuryScript, amount: tax });
    expect(parseStateRecordScript(outs[2]!.script)).toMatchObject({
      action: 'x',
      unitDebt: 210_000n,
      vaultSats: 800_000n - tax,
    });
  });

  it('is refused by the script check without the revealed secret', () => {
    const liquidated = vaultUtxo(300_000n, 200_000n, 9_000_000n);
    const claimant = vaultUtxo(500_000n, 10_000n, 5_000_000n, pubSchnorr(keys.claimantVault));
    const built = buildRepossessPsbt({
      ...paidFrom([paymentUtxo(40_000n)], feeRate),
      vault: claimant,
      liquidated,
      treasuryScript,
    });
    const signed = signAll(built, { vaultKey: keys.claimantVault, secret: new Uint8Array(32) });
    expect(verifyInputs(signed.rawHex, signed.prevouts)).toMatchObject({ ok: false, input: 0 });
  });
});

// The drawers quote a network cost from @unit/protocol's estimateVsize before any PSBT exists; it
// must match what these builders really produce (it read twice the real cost), so each
// action's transaction is built, signed in full and measured here, with one payment input.
describe("the protocol's vsize estimate against the real transactions", () => {
  function realVsize(built: BuiltVaultTx, opts?: Parameters<typeof signAll>[1]): number {
    return signAll(built, opts).tx.vsize;
  }
  const unitUtxo = () => ({
    txid: txid(),
    vout: 1,
    value: postage,
    script: wallet.runesScript,
    unitAmount: 70_000n,
  });
  const claimantPub = pubSchnorr(keys.claimantVault);
  const liquidated = vaultUtxo(300_000n, 200_000n, 9_000_000n, vaultPub);
  const cases: [VaultAction, (state: VaultStateFields) => number][] = [
    [
      'open',
      (state) =>
        realVsize(
          buildOpenPsbt({
            wallet,
            utxos: [paymentUtxo(300_000n)],
            feeRate,
            state,
            newVault,
            depositAmount: 250_000n,
            borrowAmount: 50_000n,
            treasury: treasuryUtxo(),
            unitRuneId,
          }),
        ),
    ],
    [
      'deposit',
      (state) =>
        realVsize(
          buildDepositPsbt({
            wallet,
            utxos: [paymentUtxo(150_000n)],
            feeRate,
            state,
            newVault,
            vault: vaultUtxo(200_000n, 60_000n),
            depositAmount: 100_000n,
          }),
        ),
    ],
    [
      'borrow',
      (state) =>
        realVsize(
          buildBorrowPsbt({
            wallet,
            utxos: [paymentUtxo(50_000n)],
            feeRate,
            state,
            newVault,
            vault: vaultUtxo(400_000n, 60_000n),
            treasury: treasuryUtxo(),
            borrowAmount: 20_000n,
            unitRuneId,
          }),
        ),
    ],
    [
      'repay',
      (state) =>
        realVsize(
          buildRepayPsbt({
            wallet,
            utxos: [paymentUtxo(50_000n)],
            feeRate,
            state,
            newVault,
            vault: vaultUtxo(400_000n, 60_000n),
            repayAmount: 25_000n,
            unitUtxos: [unitUtxo()],
            treasuryScript,
            unitRuneId,
          }),
        ),
    ],
    [
      'withdraw',
      (state) =>
        realVsize(
          buildWithdrawPsbt({
            wallet,
            feeRate,
            state,
            newVault,
            vault: vaultUtxo(400_000n, 60_000n),
            withdrawAmount: 150_000n,
          }),
        ),
    ],
    [
      'repossess',
      (state) =>
        realVsize(
          buildRepossessPsbt({
            wallet,
            utxos: [paymentUtxo(40_000n)],
            feeRate,
            state,
            newVault,
            vault: vaultUtxo(500_000n, 10_000n, 5_000_000n, claimantPub),
            liquidated,
            treasuryScript,
          }),
          { vaultKey: keys.claimantVault, secret: liquidated.secret },
        ),
    ],
  ];
  // Network mode: every record also commits to the quote's price quorum (32 bytes more).
  const committed = { ...stateFields, quorumCommitment: new Uint8Array(32).fill(7) };
  for (const [action, measure] of cases)
    it(`${action}: never under the real vsize and within 5% of it, in off and network mode`, () => {
      for (const quorumCommitment of [false, true]) {
        const real = measure(quorumCommitment ? committed : stateFields);
        const paymentInputs = defaultPaymentInputs(action);
        const estimate = estimateVsize({ action, paymentInputs, quorumCommitment });
        expect(estimate).toBeGreaterThanOrEqual(real);
        expect(estimate).toBeLessThanOrEqual(Math.ceil(real * 1.05));
      }
    });
});

import { describe, expect, it } from 'vitest';
import { buildDepositPsbt, buildOpenPsbt } from './builders';
import {
  MAX_DEPOSIT_ERROR,
  maxOpenDeposit,
  maxVaultDeposit,
  refineMaxDeposit,
} from './max-deposit';
import { paidFrom, paymentUtxo, treasuryUtxo, unitRuneId, vaultUtxo } from './test-fixtures';
import type { PaymentUtxo } from './coin-select';
import { feeFor, inputWeight, weightToVsize } from './vsize';

const feeRate = 4;

/** Max for a vault of 50,000 sats paid from `utxos`, and the deposit of exactly it, built. */
function maxDeposit(utxos: PaymentUtxo[]) {
  const params = { ...paidFrom(utxos, feeRate), vault: vaultUtxo(50_000n, 0n) };
  const max = maxVaultDeposit(params);
  return { params, max, built: buildDepositPsbt({ ...params, depositAmount: max }) };
}

describe('refineMaxDeposit', () => {
  it('spends every UTXO with no change: the sum less the fee of exactly that transaction', () => {
    const utxos = [paymentUtxo(30_000n), paymentUtxo(70_000n)];
    const weight = 500 + 2 * inputWeight('p2wpkh');
    expect(refineMaxDeposit({ utxos, feeRate, fixedWeight: 500 })).toBe(
      100_000n - feeFor(weightToVsize(weight), feeRate),
    );
  });

  it('leaves out a UTXO worth less than the fee of spending it', () => {
    const big = paymentUtxo(70_000n);
    const withCrumb = refineMaxDeposit({
      utxos: [big, paymentUtxo(100n)],
      feeRate,
      fixedWeight: 500,
    });
    expect(withCrumb).toBe(refineMaxDeposit({ utxos: [big], feeRate, fixedWeight: 500 }));
  });

  it("throws 'Cannot get utxo for max deposit amount' with no usable UTXO", () => {
    expect(() => refineMaxDeposit({ utxos: [], feeRate, fixedWeight: 500 })).toThrow(
      MAX_DEPOSIT_ERROR,
    );
    expect(MAX_DEPOSIT_ERROR).toBe('Cannot get utxo for max deposit amount');
  });

  it('throws the same error when the fixed costs eat the whole balance', () => {
    expect(() =>
      refineMaxDeposit({
        utxos: [paymentUtxo(5_000n)],
        feeRate,
        fixedWeight: 500,
        fixedCost: 10_000n,
      }),
    ).toThrow(MAX_DEPOSIT_ERROR);
  });

  it('gives a deposit the builder can pay exactly, with no change left over', () => {
    const { params, max, built } = maxDeposit([paymentUtxo(120_000n), paymentUtxo(33_333n)]);
    expect(built.change).toBe(0n);
    expect(built.fee).toBeGreaterThanOrEqual(feeFor(built.vsize, feeRate));
    expect(() => buildDepositPsbt({ ...params, depositAmount: max + 1_000n })).toThrow(/needs/);
  });

  it('gives a deposit the builder can pay when the wallet also holds a crumb', () => {
    // 150 sats cannot pay the 272 sats it costs to spend at 4 sat/vB: Max leaves it out, and
    // coin selection must not need it either.
    const { built } = maxDeposit([paymentUtxo(120_000n), paymentUtxo(150n)]);
    expect(built.fee).toBeGreaterThanOrEqual(feeFor(built.vsize, feeRate));
  });

  it('accounts for the UNIT postage when opening a vault', () => {
    const utxos = [paymentUtxo(200_000n)];
    const params = {
      ...paidFrom(utxos, feeRate),
      borrowAmount: 10_000n,
      treasury: treasuryUtxo(),
      unitRuneId,
    };
    const max = maxOpenDeposit(params);
    expect(max).toBeLessThan(200_000n - 10_000n);
    const built = buildOpenPsbt({ ...params, depositAmount: max });
    expect(built.change).toBe(0n);
  });
});

import { Transaction } from '@scure/btc-signer';
import { describe, expect, it } from 'vitest';
import {
  buildBorrowPsbt,
  buildDepositPsbt,
  buildRepayPsbt,
  buildWithdrawPsbt,
  unitRunestoneScript,
  type VaultUtxo,
} from './builders';
import { parseVaultTransaction, type ParseContext } from './parse';
import { signUserInputs } from './sign';
import {
  keys,
  newVault,
  paidFrom,
  paymentUtxo,
  stateFields,
  treasuryScript,
  treasuryUtxo,
  txid,
  unitRuneId,
  vaultUtxo,
  wallet,
} from './test-fixtures';
import { VAULT_TX_OPTS } from './vault-tx';

const feeRate = 2;

function contextFor(vault: VaultUtxo, extra: Partial<ParseContext> = {}): ParseContext {
  return {
    vault: { ...vault, script: vault.output.script },
    treasuryScript,
    newVaultScript: newVault.script,
    unitRuneId,
    ...extra,
  };
}

const outputAmount = (psbt: Uint8Array, vout: number) =>
  Transaction.fromPSBT(psbt, VAULT_TX_OPTS).getOutput(vout).amount;

/** Rebuilds the PSBT with its outputs changed, as a tampering client would. */
function tamper(
  psbt: Uint8Array,
  change: (outputs: { script: Uint8Array; amount: bigint }[]) => void,
): Uint8Array {
  const tx = Transaction.fromPSBT(psbt, VAULT_TX_OPTS);
  const outputs = Array.from({ length: tx.outputsLength }, (_, i) => {
    const { script, amount } = tx.getOutput(i);
    return { script: script!, amount: amount! };
  });
  change(outputs);
  const copy = new Transaction(VAULT_TX_OPTS);
  for (let i = 0; i < tx.inputsLength; i++) copy.addInput(tx.getInput(i));
  for (const output of outputs) copy.addOutput(output);
  return copy.toPSBT(0);
}

describe('parseVaultTransaction', () => {
  const vault = vaultUtxo(200_000n, 60_000n);
  const deposit = buildDepositPsbt({
    ...paidFrom([paymentUtxo(150_000n)], feeRate),
    vault,
    depositAmount: 100_000n,
  });

  it('accepts a signed deposit and extracts the amount and state record', () => {
    const signed = signUserInputs(signUserInputs(deposit.psbt, keys.vault, [0]), keys.payment, [1]);
    const result = parseVaultTransaction('deposit', signed, contextFor(vault));
    expect(result).toMatchObject({
      ok: true,
      value: {
        action: 'deposit',
        btcAmount: 100_000n,
        unitAmount: 0n,
        vaultSats: 300_000n,
        fee: deposit.fee,
        changeVout: 2,
        state: { action: 'd', unitDebt: 60_000n, vaultSats: 300_000n },
      },
    });
    if (result.ok) expect(result.value.vsize).toBe(deposit.vsize);
  });

  it('rejects swapped outputs', () => {
    const swapped = tamper(deposit.psbt, (outputs) => outputs.reverse());
    expect(parseVaultTransaction('deposit', swapped, contextFor(vault))).toMatchObject({
      ok: false,
      error: 'bad_transaction',
      reason: 'output 0 is not the expected vault',
    });
  });

  it('rejects a vault amount that differs from the state record', () => {
    const short = tamper(deposit.psbt, (outputs) => {
      outputs[0]!.amount -= 1_000n;
      outputs[2]!.amount += 1_000n;
    });
    expect(parseVaultTransaction('deposit', short, contextFor(vault))).toMatchObject({
      ok: false,
      reason: 'state record BTC differs from the vault output',
    });
  });

  it('rejects a deposit presented as another action', () => {
    expect(parseVaultTransaction('withdraw', deposit.psbt, contextFor(vault))).toMatchObject({
      ok: false,
      error: 'bad_transaction',
    });
  });

  it('rejects a spend of another vault than the one on record', () => {
    const other = vaultUtxo(200_000n, 60_000n);
    expect(parseVaultTransaction('deposit', deposit.psbt, contextFor(other))).toMatchObject({
      ok: false,
      reason: 'input 0 must be the vault',
    });
  });

  /** A borrow of 200 UNIT from the vault on record, paid from one payment output. */
  const borrowOf = (treasury: ReturnType<typeof treasuryUtxo>, postageSats?: bigint) =>
    buildBorrowPsbt({
      ...paidFrom([paymentUtxo(50_000n)], feeRate),
      vault,
      treasury,
      borrowAmount: 20_000n,
      unitRuneId,
      ...(postageSats !== undefined ? { postageSats } : {}),
    });

  it('checks a borrow issues exactly the recorded debt from the reserved treasury UTXO', () => {
    const treasury = treasuryUtxo();
    const borrow = borrowOf(treasury);
    const ctx = contextFor(vault, { treasury });
    expect(parseVaultTransaction('borrow', borrow.psbt, ctx)).toMatchObject({
      ok: true,
      value: { unitAmount: 20_000n, state: { unitDebt: 80_000n } },
    });
    const moreUnit = tamper(borrow.psbt, (outputs) => {
      outputs[3]!.script = unitRunestoneScript(unitRuneId, 90_000n);
    });
    expect(parseVaultTransaction('borrow', moreUnit, ctx)).toMatchObject({
      ok: false,
      reason: 'runestone does not issue the recorded debt',
    });
  });

  it("holds the account's UNIT outputs to its level's postage, the treasury's to the default", () => {
    const treasury = treasuryUtxo();
    const borrow = borrowOf(treasury, 15_000n);
    expect(outputAmount(borrow.psbt, 1)).toBe(15_000n);
    const level = contextFor(vault, { treasury, postageSats: 15_000n });
    expect(parseVaultTransaction('borrow', borrow.psbt, level).ok).toBe(true);
    // the same transaction from an account without that level pays the wrong postage
    expect(parseVaultTransaction('borrow', borrow.psbt, contextFor(vault, { treasury }))).toEqual({
      ok: false,
      error: 'bad_transaction',
      reason: 'UNIT postage amount',
    });

    const repay = buildRepayPsbt({
      ...paidFrom([paymentUtxo(50_000n)], feeRate),
      vault,
      repayAmount: 10_000n,
      unitUtxos: [
        { txid: txid(), vout: 1, value: 15_000n, script: wallet.runesScript, unitAmount: 20_000n },
      ],
      treasuryScript,
      unitRuneId,
      postageSats: 15_000n,
    });
    expect(outputAmount(repay.psbt, 1)).toBe(10_000n);
    expect(outputAmount(repay.psbt, 2)).toBe(15_000n);
    expect(
      parseVaultTransaction('repay', repay.psbt, contextFor(vault, { postageSats: 15_000n })).ok,
    ).toBe(true);
    const treasuryShort = tamper(repay.psbt, (outputs) => {
      outputs[1]!.amount = 546n;
    });
    expect(
      parseVaultTransaction('repay', treasuryShort, contextFor(vault, { postageSats: 15_000n })),
    ).toMatchObject({ ok: false, reason: 'UNIT must go to the treasury with postage' });
  });

  it('accepts a withdraw and reports the amount taken out', () => {
    const built = buildWithdrawPsbt({
      wallet,
      feeRate,
      state: stateFields,
      newVault,
      vault,
      withdrawAmount: 50_000n,
    });
    expect(parseVaultTransaction('withdraw', built.psbt, contextFor(vault))).toMatchObject({
      ok: true,
      value: { btcAmount: 50_000n, fee: built.fee, changeVout: null },
    });
  });

  it('answers bad_transaction for bytes that are no PSBT', () => {
    expect(parseVaultTransaction('deposit', new Uint8Array([1, 2, 3]), contextFor(vault))).toEqual({
      ok: false,
      error: 'bad_transaction',
      reason: 'not a readable PSBT',
    });
  });
});

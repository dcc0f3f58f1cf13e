import { describe, expect, it } from 'vitest';
import { hex } from '@scure/base';
import { Transaction } from '@scure/btc-signer';
import { equalBytes } from '@scure/btc-signer/utils.js';
import { minimumReplacementFee, REPLACEABLE_SEQUENCE } from '@unit/protocol';
import { verifyInputs, type Prevout } from '../core';
import { buildDepositPsbt, buildOpenPsbt, buildWithdrawPsbt, type BuiltVaultTx } from './builders';
import { cosignVaultInput, finalize, signTreasuryInput, signUserInputs } from './sign';
import { buildSpeedUpPsbt, checkFeeOnlyReplacement } from './speed-up';
import {
  keys,
  newVault,
  paymentUtxo,
  stateFields,
  treasuryPub,
  treasuryScript,
  treasuryUtxo,
  unitRuneId,
  vaultUtxo,
  wallet,
} from './test-fixtures';
import { VAULT_TX_OPTS, type AssembledVaultTx } from './vault-tx';

function prevouts(psbt: Uint8Array): Prevout[] {
  const tx = Transaction.fromPSBT(psbt, VAULT_TX_OPTS);
  return Array.from({ length: tx.inputsLength }, (_, i) => {
    const utxo = tx.getInput(i).witnessUtxo!;
    return { script: utxo.script, amount: utxo.amount };
  });
}

/** Every signature the transaction needs, as wallet, guardian and treasury would add them. */
function signAll(built: AssembledVaultTx): { hex: string; tx: Transaction; prevouts: Prevout[] } {
  let psbt = built.psbt;
  const inputs = prevouts(psbt);
  for (const index of built.signInputs.user) {
    const script = inputs[index]!.script;
    psbt = signUserInputs(psbt, equalBytes(script, wallet.satsScript) ? keys.payment : keys.vault, [
      index,
    ]);
  }
  for (const index of built.signInputs.guardian)
    psbt = cosignVaultInput(psbt, keys.guardian, index);
  for (const index of built.signInputs.treasury)
    psbt = signTreasuryInput(psbt, keys.treasury, index);
  const raw = finalize(psbt);
  return {
    hex: raw,
    tx: Transaction.fromRaw(hex.decode(raw), VAULT_TX_OPTS),
    prevouts: inputs,
  };
}

/** A deposit sent at 1 sat/vB: the transaction a speed-up starts from. */
function slowDeposit() {
  const vault = vaultUtxo(200_000n, 60_000n);
  const built: BuiltVaultTx = buildDepositPsbt({
    wallet,
    utxos: [paymentUtxo(150_000n)],
    feeRate: 1,
    state: stateFields,
    newVault,
    vault,
    depositAmount: 100_000n,
  });
  return { vault, built, signed: signAll(built) };
}

describe('replaceable vault transactions', () => {
  it('signal BIP-125 on every input, and the vault leaf spend still verifies', () => {
    const { signed } = slowDeposit();
    for (let i = 0; i < signed.tx.inputsLength; i++)
      expect(signed.tx.getInput(i).sequence).toBe(REPLACEABLE_SEQUENCE);
    expect(verifyInputs(signed.hex, signed.prevouts)).toEqual({ ok: true });
  });
});

describe('buildSpeedUpPsbt', () => {
  it('pays the higher rate from the change, keeping every other output and input', () => {
    const { vault, built, signed } = slowDeposit();
    const original = { hex: signed.hex, prevouts: signed.prevouts };
    const replacement = buildSpeedUpPsbt({
      action: 'deposit',
      original,
      wallet,
      vaults: [{ output: vault.output, leaf: 'update' }],
      utxos: [],
      feeRate: 5,
    });
    const again = signAll(replacement);
    expect(verifyInputs(again.hex, again.prevouts)).toEqual({ ok: true });
    expect(again.tx.inputsLength).toBe(signed.tx.inputsLength);
    expect(replacement.change).toBe(built.change - (replacement.fee - built.fee));
    expect(replacement.fee).toBeGreaterThanOrEqual(
      minimumReplacementFee({ fee: built.fee, vsize: signed.tx.vsize }, again.tx.vsize),
    );
    const check = checkFeeOnlyReplacement('deposit', original, replacement.psbt);
    expect(check).toEqual({ ok: true, addedInputs: [], extraFee: replacement.fee - built.fee });
  });

  it('adds a payment input when the change cannot pay (a withdraw has none)', () => {
    const vault = vaultUtxo(500_000n, 0n);
    const built = buildWithdrawPsbt({
      wallet,
      feeRate: 1,
      state: stateFields,
      newVault,
      vault,
      withdrawAmount: 100_000n,
    });
    const signed = signAll(built);
    const original = { hex: signed.hex, prevouts: signed.prevouts };
    const replacement = buildSpeedUpPsbt({
      action: 'withdraw',
      original,
      wallet,
      vaults: [{ output: vault.output, leaf: 'update' }],
      utxos: [paymentUtxo(20_000n)],
      feeRate: 4,
    });
    const again = signAll(replacement);
    expect(verifyInputs(again.hex, again.prevouts)).toEqual({ ok: true });
    expect(again.tx.inputsLength).toBe(2);
    expect(checkFeeOnlyReplacement('withdraw', original, replacement.psbt)).toMatchObject({
      ok: true,
      addedInputs: [1],
    });
  });

  it('keeps the treasury input of an open for the treasury key', () => {
    const treasury = treasuryUtxo();
    const built = buildOpenPsbt({
      wallet,
      utxos: [paymentUtxo(300_000n)],
      feeRate: 1,
      state: stateFields,
      newVault,
      depositAmount: 250_000n,
      borrowAmount: 50_000n,
      treasury,
      unitRuneId,
    });
    const signed = signAll(built);
    const replacement = buildSpeedUpPsbt({
      action: 'open',
      original: { hex: signed.hex, prevouts: signed.prevouts },
      wallet,
      vaults: [],
      treasury: { script: treasuryScript, internalKey: treasuryPub },
      utxos: [],
      feeRate: 3,
    });
    expect(replacement.signInputs).toEqual({ user: [1], guardian: [], treasury: [0] });
    const again = signAll(replacement);
    expect(verifyInputs(again.hex, again.prevouts)).toEqual({ ok: true });
  });
});

describe('buildSpeedUpPsbt without the vault output at hand', () => {
  it('reads the spent leaf and its control block back from the original witness', () => {
    const parities = new Set<number>();
    // Vaults at several thresholds: their output keys differ in parity, which the control block's
    // first byte carries beside the leaf version.
    for (const th of [5_000_000n, 5_000_001n, 5_000_002n, 5_000_003n, 5_000_004n, 5_000_005n]) {
      const vault = vaultUtxo(200_000n, 60_000n, th);
      const built = buildDepositPsbt({
        wallet,
        utxos: [paymentUtxo(150_000n)],
        feeRate: 1,
        state: stateFields,
        newVault,
        vault,
        depositAmount: 100_000n,
      });
      const signed = signAll(built);
      const witness = signed.tx.getInput(0).finalScriptWitness!;
      parities.add(witness[witness.length - 1]![0]! & 1);
      const original = { hex: signed.hex, prevouts: signed.prevouts };
      const args = { action: 'deposit' as const, original, wallet, utxos: [], feeRate: 5 };
      const fromWitness = buildSpeedUpPsbt(args);
      const fromVault = buildSpeedUpPsbt({
        ...args,
        vaults: [{ output: vault.output, leaf: 'update' }],
      });
      expect(fromWitness.psbt).toEqual(fromVault.psbt);
      expect(verifyInputs(signAll(fromWitness).hex, signed.prevouts)).toEqual({ ok: true });
    }
    expect(parities).toEqual(new Set([0, 1]));
  });
});

describe('checkFeeOnlyReplacement', () => {
  /** The transaction with another lock time or version, inputs and outputs as they are. */
  function rebuilt(tx: Transaction, header: { lockTime?: number; version?: number }) {
    const copy = new Transaction({
      ...VAULT_TX_OPTS,
      lockTime: header.lockTime ?? tx.lockTime,
      version: header.version ?? tx.version,
    });
    for (let i = 0; i < tx.inputsLength; i++) copy.addInput(tx.getInput(i));
    for (let i = 0; i < tx.outputsLength; i++) copy.addOutput(tx.getOutput(i));
    return copy;
  }

  /** The replacement of the slow deposit with one thing changed. */
  function tampered(change: (tx: Transaction) => unknown) {
    const { vault, signed } = slowDeposit();
    const original = { hex: signed.hex, prevouts: signed.prevouts };
    const replacement = buildSpeedUpPsbt({
      action: 'deposit',
      original,
      wallet,
      vaults: [{ output: vault.output, leaf: 'update' }],
      utxos: [],
      feeRate: 5,
    });
    const tx = Transaction.fromPSBT(replacement.psbt, VAULT_TX_OPTS);
    const result = change(tx);
    const changed = result instanceof Transaction ? result : tx;
    return checkFeeOnlyReplacement('deposit', original, changed.toPSBT(0));
  }

  it('refuses a replacement that moves the vault amount', () => {
    expect(
      tampered((tx) => tx.updateOutput(0, { amount: tx.getOutput(0).amount! - 1_000n })),
    ).toMatchObject({
      ok: false,
      reason: expect.stringMatching(
        /^output 0's amount differs from the original \(\d+, was \d+\)$/,
      ),
    });
  });

  it('refuses a replacement that rewrites the state record', () => {
    expect(
      tampered((tx) => {
        const script = tx.getOutput(1).script!.slice();
        script[script.length - 1] = script[script.length - 1]! ^ 1;
        tx.updateOutput(1, { script });
      }),
    ).toEqual({ ok: false, reason: "output 1's script differs from the original" });
  });

  it('refuses change sent elsewhere, an extra output, and a dropped input', () => {
    expect(tampered((tx) => tx.updateOutput(2, { script: treasuryScript }))).toEqual({
      ok: false,
      reason: 'the change goes to another address',
    });
    expect(
      tampered((tx) => tx.addOutput({ script: wallet.satsScript, amount: 1_000n })),
    ).toMatchObject({ ok: false });
    expect(tampered((tx) => tx.updateInput(1, { index: 5 }, true))).toEqual({
      ok: false,
      reason: "input 1 is not the original's",
    });
  });

  it('refuses a replacement with another lock time or version, and says which', () => {
    // 1,900,000,000: a time lock in 2030, which would keep the vault's output from being mined.
    expect(tampered((tx) => rebuilt(tx, { lockTime: 1_900_000_000 }))).toEqual({
      ok: false,
      reason: 'the lock time differs from the original (1900000000, was 0)',
    });
    expect(tampered((tx) => rebuilt(tx, { version: 3 }))).toEqual({
      ok: false,
      reason: 'the version differs from the original (3, was 2)',
    });
  });

  it("refuses a replacement that changes an input's sequence (a relative lock, or final)", () => {
    expect(tampered((tx) => tx.updateInput(0, { sequence: 10 }, true))).toEqual({
      ok: false,
      reason: "input 0's sequence differs from the original (10, was 4294967293)",
    });
    expect(tampered((tx) => tx.updateInput(1, { sequence: 0xffffffff }, true))).toEqual({
      ok: false,
      reason: "input 1's sequence differs from the original (4294967295, was 4294967293)",
    });
  });

  it("refuses an added input whose sequence is not the original's", () => {
    const vault = vaultUtxo(500_000n, 0n);
    const signed = signAll(
      buildWithdrawPsbt({
        wallet,
        feeRate: 1,
        state: stateFields,
        newVault,
        vault,
        withdrawAmount: 100_000n,
      }),
    );
    const original = { hex: signed.hex, prevouts: signed.prevouts };
    const replacement = buildSpeedUpPsbt({
      action: 'withdraw',
      original,
      wallet,
      vaults: [{ output: vault.output, leaf: 'update' }],
      utxos: [paymentUtxo(20_000n)],
      feeRate: 4,
    });
    const tx = Transaction.fromPSBT(replacement.psbt, VAULT_TX_OPTS);
    tx.updateInput(1, { sequence: 144 }, true);
    expect(checkFeeOnlyReplacement('withdraw', original, tx.toPSBT(0))).toEqual({
      ok: false,
      reason: "added input 1's sequence is not the original's (144, not 4294967293)",
    });
  });

  it('refuses a replacement that pays no more', () => {
    expect(
      tampered((tx) => tx.updateOutput(2, { amount: tx.getOutput(2).amount! + 100_000n })),
    ).toEqual({ ok: false, reason: 'the replacement pays no more fee' });
  });
});

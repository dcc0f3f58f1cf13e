// The actions write layout 2 (docs/protocol.md, "Leaving without the guardians"): a quote's term
// gives the new vault its exit and settlement leaves and the record (versions 5 to 8) the heights and
// the exit's sibling; a layout 1 vault moves to layout 2 on its next action and a layout 2 vault is
// spent through its (deeper) update leaf; the protocol's vsize estimate counts both.
import { hex } from '@scure/base';
import { Transaction } from '@scure/btc-signer';
import {
  estimateVsize,
  vaultTermAt,
  DEVNET_TERM_CONFIG,
  VAULT_LAYOUT_TERMED,
} from '@unit/protocol';
import { describe, expect, it } from 'vitest';
import {
  decodeStateRecord,
  encodeStateRecord,
  exitLeafProof,
  parseStateRecordScript,
  thresholdHash,
  thresholdSecret,
  verifyInputs,
  vaultOutput,
  type Prevout,
} from '../core';
import { termRecordProblem } from '../actions';
import { buildDepositPsbt, type BuiltVaultTx } from './builders';
import { quotedVault } from './quoted-vault';
import { cosignVaultInput, finalize, signUserInputs } from './sign';
import {
  guardPub,
  keys,
  network,
  oracleSecret,
  paymentUtxo,
  vaultPub,
  vaultUtxo,
  wallet,
  txid,
} from './test-fixtures';
import { VAULT_TX_OPTS } from './vault-tx';

const feeRate = 3;
const term = vaultTermAt(1_000, DEVNET_TERM_CONFIG);
const quoteTerm = { settle_height: term.settleHeight, exit_height: term.exitHeight };
const stamp = 1_700_000_100;
const hashAt = (cents: bigint) => thresholdHash(thresholdSecret(oracleSecret, cents, stamp));
const quote = {
  price_cents: 9_500_000,
  ts: stamp,
  threshold_hash: hex.encode(hashAt(4_000_000n)),
  term: quoteTerm,
};
const request = { nonce: new Uint8Array(16).fill(7), expiry: stamp + 300 };
const vaultKeys = { vaultPubkey: vaultPub, guardPubkey: guardPub, network };

function prevouts(psbt: Uint8Array): Prevout[] {
  const tx = Transaction.fromPSBT(psbt, VAULT_TX_OPTS);
  return Array.from({ length: tx.inputsLength }, (_, i) => {
    const utxo = tx.getInput(i).witnessUtxo!;
    return { script: utxo.script, amount: utxo.amount };
  });
}

/** The vault and guardian sign input 0 (the update leaf), the payment key the rest. */
function signDeposit(built: BuiltVaultTx) {
  let psbt = signUserInputs(built.psbt, keys.vault, [0]);
  psbt = signUserInputs(psbt, keys.payment, built.signInputs.user.slice(1));
  psbt = cosignVaultInput(psbt, keys.guardian, 0);
  const rawHex = finalize(psbt);
  return { rawHex, tx: Transaction.fromRaw(hex.decode(rawHex), VAULT_TX_OPTS) };
}

function deposit(vault: ReturnType<typeof vaultUtxo>) {
  const { state, newVault } = quotedVault(quote, 4_000_000n, request, vaultKeys);
  const built = buildDepositPsbt({
    wallet,
    utxos: [paymentUtxo(150_000n)],
    feeRate,
    state,
    newVault,
    vault,
    depositAmount: 100_000n,
  });
  const signed = signDeposit(built);
  expect(verifyInputs(signed.rawHex, prevouts(built.psbt))).toEqual({ ok: true });
  expect(built.vsize).toBeGreaterThanOrEqual(signed.tx.vsize);
  return { state, newVault, built, signed };
}

describe('quotedVault with a term', () => {
  it('writes the term into the output and the record, and none without one', () => {
    const { state, newVault } = quotedVault(quote, 4_000_000n, request, vaultKeys);
    expect(newVault.layout).toBe(VAULT_LAYOUT_TERMED);
    expect(newVault.term).toEqual(term);
    expect(state.term).toEqual({ ...term, exitBranch: newVault.exitBranch });
    const { term: _omit, ...untermed } = quote;
    const old = quotedVault(untermed, 4_000_000n, request, vaultKeys);
    expect(old.state).not.toHaveProperty('term');
    expect(old.newVault.script).toEqual(
      vaultOutput({ ...vaultKeys, thresholdHash: hashAt(4_000_000n) }).script,
    );
    expect(old.newVault.script).not.toEqual(newVault.script);
  });
});

describe('a deposit writing layout 2', () => {
  it('moves a layout 1 vault to layout 2: the chain accepts it and its record proves the exit', () => {
    const { newVault, signed } = deposit(vaultUtxo(200_000n, 60_000n));
    const outs = Array.from({ length: signed.tx.outputsLength }, (_, i) => signed.tx.getOutput(i));
    expect(outs[0]!.script).toEqual(newVault.script);
    const record = parseStateRecordScript(outs[1]!.script!)!;
    expect(record.term).toEqual({ ...term, exitBranch: newVault.exitBranch });
    // Version 5: version 1's bytes with the 40-byte term.
    expect(encodeStateRecord(record)[5]).toBe(5);
    expect(decodeStateRecord(encodeStateRecord(record))).toEqual(record);
    expect(
      termRecordProblem(
        record,
        newVault.term && { ...newVault.term, exitBranch: newVault.exitBranch! },
      ),
    ).toBeNull();
    // Anyone with the key and the record rebuilds the exit leaf of the output on chain.
    const proof = exitLeafProof({
      vaultPubkey: vaultPub,
      exitHeight: record.term!.exitHeight,
      exitBranch: record.term!.exitBranch,
    });
    expect(proof.outputScript).toEqual(outs[0]!.script);
  });

  it('spends a layout 2 vault through its update leaf, one level deeper, within the estimate', () => {
    const old = vaultOutput({
      ...vaultKeys,
      thresholdHash: hashAt(5_000_000n),
      term: vaultTermAt(900, DEVNET_TERM_CONFIG),
    });
    const vault = {
      txid: txid(),
      vout: 0,
      value: 200_000n,
      unitDebt: 60_000n,
      output: old,
      secret: new Uint8Array(32),
    };
    const { signed } = deposit(vault);
    const estimate = estimateVsize({
      action: 'deposit',
      paymentInputs: 1,
      term: true,
      spentTermed: true,
    });
    expect(estimate).toBeGreaterThanOrEqual(signed.tx.vsize);
    expect(estimate).toBeLessThanOrEqual(Math.ceil(signed.tx.vsize * 1.05));
    const moved = deposit(vaultUtxo(200_000n, 60_000n)).signed.tx.vsize;
    const movedEstimate = estimateVsize({ action: 'deposit', paymentInputs: 1, term: true });
    expect(movedEstimate).toBeGreaterThanOrEqual(moved);
    expect(movedEstimate).toBeLessThanOrEqual(Math.ceil(moved * 1.05));
  });

  it("refuses a record whose term or exit branch is not the output's, or a term on a layout 1 output", () => {
    const { state } = quotedVault(quote, 4_000_000n, request, vaultKeys);
    const expected = state.term!;
    expect(
      termRecordProblem({ term: { ...expected, exitHeight: expected.exitHeight + 1 } }, expected),
    ).toMatch(/term is not/);
    expect(
      termRecordProblem({ term: { ...expected, exitBranch: new Uint8Array(32) } }, expected),
    ).toMatch(/exit branch/);
    expect(termRecordProblem({}, expected)).toMatch(/does not carry/);
    expect(termRecordProblem({ term: expected }, undefined)).toMatch(/has none of/);
    expect(termRecordProblem({}, undefined)).toBeNull();
  });
});

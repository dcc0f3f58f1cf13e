// VerifyMemo: an earlier pass over an unfinished transaction records only the checks that held, and
// the final pass still checks every input, skipping only the exact (key, sighash, signature)
// triples recorded: a signature swapped afterwards, or one that failed before, is refused.
import { describe, expect, it } from 'vitest';
import { schnorr } from '@noble/curves/secp256k1.js';
import { p2wpkh, SigHash, TEST_NETWORK, Transaction } from '@scure/btc-signer';
import { tapLeafHash } from '@scure/btc-signer/payment.js';
import { fakeTxid, guardianKey, strangerKey, testKey, userKey } from '../test/testKeys';
import { parseTransaction } from './transaction';
import { recordInputs, verifyInputs, VerifyMemo, type Prevout } from './verify';
import { TAPSCRIPT_LEAF_VERSION, thresholdHash, vaultOutput } from './vault-script';

const vault = vaultOutput({
  vaultPubkey: userKey.xOnly,
  guardPubkey: guardianKey.xOnly,
  thresholdHash: thresholdHash(new Uint8Array(32).fill(3)),
  network: TEST_NETWORK,
});
const payment = p2wpkh(userKey.compressed, TEST_NETWORK);
const prevouts: Prevout[] = [
  { script: vault.script, amount: 500_000n },
  { script: payment.script, amount: 100_000n },
];

const leafHash = tapLeafHash(vault.updateLeaf.script, TAPSCRIPT_LEAF_VERSION);

/** `signer`'s signature of the vault input's update leaf, filed under `pubKey`'s name. */
function leafSignature(tx: Transaction, signer: Uint8Array, pubKey: Uint8Array): void {
  const message = tx.preimageWitnessV1(
    0,
    prevouts.map((p) => p.script),
    SigHash.DEFAULT,
    prevouts.map((p) => p.amount),
    -1,
    vault.updateLeaf.script,
    TAPSCRIPT_LEAF_VERSION,
  );
  const signature = signer.length === 0 ? new Uint8Array(64) : schnorr.sign(message, signer);
  tx.updateInput(0, { tapScriptSig: [[{ pubKey, leafHash }, signature]] });
}

/**
 * The vault's update leaf and a payment input; the vault input signed by `vaultSigner` as the
 * user, and by the guardian, or with 64 zero bytes in its place (the placeholder), finished.
 */
function spend(vaultSigner: Uint8Array, guardian: 'signed' | 'placeholder'): Transaction {
  const tx = new Transaction({ allowUnknownOutputs: true });
  tx.addInput({
    txid: fakeTxid(4),
    index: 0,
    witnessUtxo: prevouts[0]!,
    tapLeafScript: [vault.tapLeafScript.find(([, s]) => s.length === 69)!],
  });
  tx.addInput({ txid: fakeTxid(5), index: 1, witnessUtxo: prevouts[1]! });
  tx.addOutput({ script: p2wpkh(testKey('to').compressed, TEST_NETWORK).script, amount: 590_000n });
  tx.signIdx(userKey.privateKey, 1);
  leafSignature(tx, vaultSigner, userKey.xOnly);
  leafSignature(
    tx,
    guardian === 'signed' ? guardianKey.privateKey : new Uint8Array(),
    guardianKey.xOnly,
  );
  tx.finalize();
  return tx;
}

describe('VerifyMemo', () => {
  it('runs a check once per exact triple, and never records one that failed', () => {
    const memo = new VerifyMemo();
    const parts = [new Uint8Array([1]), new Uint8Array([2]), new Uint8Array([3])];
    let runs = 0;
    const holds = () => (runs++, true);
    expect(memo.signature(parts, holds)).toBe(true);
    expect(memo.signature(parts, holds)).toBe(true);
    expect(runs).toBe(1);
    expect(memo.signature([parts[0]!, parts[1]!, new Uint8Array([4])], holds)).toBe(true);
    expect(runs).toBe(2);
    const fails = () => (runs++, false);
    const other = [new Uint8Array([9])];
    expect(memo.signature(other, fails)).toBe(false);
    expect(memo.signature(other, fails)).toBe(false);
    expect(runs).toBe(4);
  });

  it('records the user signatures of an unfinished spend; the finished one verifies with it', () => {
    const memo = new VerifyMemo();
    recordInputs(spend(userKey.privateKey, 'placeholder'), prevouts, memo);
    const finished = spend(userKey.privateKey, 'signed');
    expect(verifyInputs(finished.hex, prevouts, memo)).toEqual({ ok: true });
    expect(verifyInputs(finished.hex, prevouts)).toEqual({ ok: true });
  });

  it('still refuses a bad guardian signature and a user signature that is not the recorded one', () => {
    const memo = new VerifyMemo();
    const unfinished = spend(userKey.privateKey, 'placeholder');
    recordInputs(unfinished, prevouts, memo);
    // The placeholder itself was checked and failed: not recorded, so refused here too.
    expect(verifyInputs(unfinished.hex, prevouts, memo)).toEqual({
      ok: false,
      input: 0,
      reason: 'bad-signature',
    });
    // A stranger's vault signature in the finished transaction: not the triple that held.
    const swapped = spend(strangerKey.privateKey, 'signed');
    expect(verifyInputs(parseTransaction(swapped.hex), prevouts, memo)).toEqual({
      ok: false,
      input: 0,
      reason: 'bad-signature',
    });
  });

  it('records nothing for a forged user signature, which the final pass refuses', () => {
    const memo = new VerifyMemo();
    recordInputs(spend(strangerKey.privateKey, 'placeholder'), prevouts, memo);
    const finished = spend(strangerKey.privateKey, 'signed');
    expect(verifyInputs(finished.hex, prevouts, memo)).toMatchObject({
      ok: false,
      input: 0,
      reason: 'bad-signature',
    });
  });

  it('is what the final pass goes by for the triples it holds (so only a checking pass may fill it)', () => {
    const memo = new VerifyMemo();
    const forged = spend(strangerKey.privateKey, 'signed');
    const message = forged.preimageWitnessV1(
      0,
      prevouts.map((p) => p.script),
      SigHash.DEFAULT,
      prevouts.map((p) => p.amount),
      -1,
      vault.updateLeaf.script,
      TAPSCRIPT_LEAF_VERSION,
    );
    const stranger = forged.getInput(0).finalScriptWitness![1]!;
    memo.signature([userKey.xOnly, message, stranger], () => true);
    expect(verifyInputs(forged.hex, prevouts, memo)).toEqual({ ok: true });
  });
});

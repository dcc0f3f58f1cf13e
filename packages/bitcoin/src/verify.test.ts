import { describe, expect, it } from 'vitest';
import { schnorr } from '@noble/curves/secp256k1.js';
import {
  OutScript,
  p2pkh,
  p2sh,
  p2tr,
  p2wpkh,
  SigHash,
  TEST_NETWORK,
  Transaction,
} from '@scure/btc-signer';
import {
  fakeTxid,
  guardianKey,
  oracleSecret,
  strangerKey,
  testKey,
  treasuryKey,
  userKey,
} from '../test/testKeys';
import { stateRecordScript } from './state-record';
import { parseTransaction } from './transaction';
import { verifyInputs, type Prevout } from './verify';
import {
  thresholdHash,
  thresholdSecret,
  vaultOutput,
  TAPSCRIPT_LEAF_VERSION,
} from './vault-script';

const PAY_TO = p2wpkh(testKey('recipient').compressed, TEST_NETWORK);
const AMOUNT = 100_000n;

const secret = thresholdSecret(oracleSecret, 6_000_000n, 1_750_000_000);
const vault = vaultOutput({
  vaultPubkey: userKey.xOnly,
  guardPubkey: guardianKey.xOnly,
  thresholdHash: thresholdHash(secret),
  network: TEST_NETWORK,
});

function spendTo(tx: Transaction): void {
  tx.addOutput({ script: PAY_TO.script, amount: AMOUNT - 1_000n });
}

type SpentInput = Omit<Parameters<Transaction['addInput']>[0], 'witnessUtxo'>;

/** One input spending AMOUNT at `script` (`input` says how) to PAY_TO, signed by the user's key. */
function signedSpend(
  script: Uint8Array,
  input: SpentInput,
  options: { sighash?: number; tx?: ConstructorParameters<typeof Transaction>[0] } = {},
): { tx: Transaction; prevouts: Prevout[] } {
  const prevouts: Prevout[] = [{ script, amount: AMOUNT }];
  const tx = new Transaction(options.tx);
  tx.addInput({ ...input, witnessUtxo: prevouts[0]! });
  spendTo(tx);
  tx.sign(userKey.privateKey, options.sighash === undefined ? undefined : [options.sighash]);
  tx.finalize();
  return { tx, prevouts };
}

/** Replaces one witness element of input `idx` and returns the new raw hex. */
function withWitness(rawHex: string, idx: number, edit: (w: Uint8Array[]) => Uint8Array[]): string {
  const tx = parseTransaction(rawHex);
  const witness = tx.getInput(idx).finalScriptWitness!.map((w) => w.slice());
  tx.updateInput(idx, { finalScriptWitness: edit(witness) }, true);
  return tx.hex;
}

function flipSignatureByte(w: Uint8Array[]): Uint8Array[] {
  const first = w[0]!;
  first[10] = first[10]! ^ 0x01;
  return w;
}

describe('verifyInputs: P2WPKH', () => {
  const payment = p2wpkh(userKey.compressed, TEST_NETWORK);
  const { tx, prevouts } = signedSpend(payment.script, { txid: fakeTxid(1), index: 0 });

  it('accepts a spend signed by the key', () => {
    expect(verifyInputs(tx.hex, prevouts)).toEqual({ ok: true });
  });

  it('accepts the btc-signer Transaction object as well as hex', () => {
    expect(verifyInputs(tx, prevouts)).toEqual({ ok: true });
  });

  it('refuses a forged signature', () => {
    expect(verifyInputs(withWitness(tx.hex, 0, flipSignatureByte), prevouts)).toEqual({
      ok: false,
      input: 0,
      reason: 'bad-signature',
    });
  });

  it('refuses when the prevout amount differs from the signed one (BIP143 commits to it)', () => {
    expect(verifyInputs(tx.hex, [{ script: payment.script, amount: AMOUNT + 1n }])).toMatchObject({
      ok: false,
      reason: 'bad-signature',
    });
  });

  it('refuses a key that does not hash to the program', () => {
    const other = p2wpkh(strangerKey.compressed, TEST_NETWORK);
    expect(verifyInputs(tx.hex, [{ script: other.script, amount: AMOUNT }])).toMatchObject({
      ok: false,
      reason: 'pubkey-mismatch',
    });
  });

  it('refuses an input without a witness', () => {
    const bare = new Transaction();
    bare.addInput({ txid: fakeTxid(1), index: 0, witnessUtxo: prevouts[0]! });
    spendTo(bare);
    expect(verifyInputs(bare.unsignedTx, prevouts)).toMatchObject({
      ok: false,
      reason: 'missing-witness',
    });
  });
});

describe('verifyInputs: P2SH-P2WPKH', () => {
  const nested = p2sh(p2wpkh(userKey.compressed, TEST_NETWORK), TEST_NETWORK);
  const input = { txid: fakeTxid(2), index: 1, redeemScript: nested.redeemScript };
  const { tx, prevouts } = signedSpend(nested.script, input);

  it('accepts a nested segwit spend', () => {
    expect(verifyInputs(tx.hex, prevouts)).toEqual({ ok: true });
  });

  it('refuses a forged signature', () => {
    expect(verifyInputs(withWitness(tx.hex, 0, flipSignatureByte), prevouts)).toMatchObject({
      ok: false,
      reason: 'bad-signature',
    });
  });

  it('refuses a redeem script that is not the one the P2SH output hashes', () => {
    const other = p2sh(p2wpkh(strangerKey.compressed, TEST_NETWORK), TEST_NETWORK);
    expect(verifyInputs(tx.hex, [{ script: other.script, amount: AMOUNT }])).toMatchObject({
      ok: false,
      reason: 'pubkey-mismatch',
    });
  });

  it('refuses a P2SH spend whose scriptSig pushes no P2WPKH redeem script', () => {
    const native = new Transaction();
    native.addInput({
      txid: fakeTxid(2),
      index: 1,
      witnessUtxo: { script: p2wpkh(userKey.compressed).script, amount: AMOUNT },
    });
    spendTo(native);
    native.sign(userKey.privateKey);
    native.finalize();
    expect(verifyInputs(native.hex, prevouts)).toEqual({
      ok: false,
      input: 0,
      reason: 'non-standard',
    });
  });
});

describe('verifyInputs: P2TR key path', () => {
  const taproot = p2tr(userKey.xOnly, undefined, TEST_NETWORK);
  const prevouts: Prevout[] = [{ script: taproot.script, amount: AMOUNT }];

  function keySpend(sighash?: number): Transaction {
    const input = {
      txid: fakeTxid(3),
      index: 0,
      tapInternalKey: userKey.xOnly,
      ...(sighash === undefined ? {} : { sighashType: sighash }),
    };
    return signedSpend(taproot.script, input, { sighash }).tx;
  }

  it('accepts SIGHASH_DEFAULT (64-byte signature)', () => {
    const tx = keySpend();
    expect(tx.getInput(0).finalScriptWitness![0]).toHaveLength(64);
    expect(verifyInputs(tx.hex, prevouts)).toEqual({ ok: true });
  });

  it('accepts SIGHASH_ALL (65-byte signature)', () => {
    const tx = keySpend(SigHash.ALL);
    expect(tx.getInput(0).finalScriptWitness![0]).toHaveLength(65);
    expect(verifyInputs(tx.hex, prevouts)).toEqual({ ok: true });
  });

  it('refuses a forged signature', () => {
    expect(verifyInputs(withWitness(keySpend().hex, 0, flipSignatureByte), prevouts)).toEqual({
      ok: false,
      input: 0,
      reason: 'bad-signature',
    });
  });

  it('refuses a signature from another key', () => {
    const other = p2tr(strangerKey.xOnly, undefined, TEST_NETWORK);
    expect(verifyInputs(keySpend().hex, [{ script: other.script, amount: AMOUNT }])).toMatchObject({
      ok: false,
      reason: 'bad-signature',
    });
  });

  it('refuses an undefined sighash type byte', () => {
    const hex = withWitness(keySpend(SigHash.ALL).hex, 0, (w) => {
      w[0]![64] = 0x04;
      return w;
    });
    expect(verifyInputs(hex, prevouts)).toMatchObject({ ok: false, reason: 'bad-sighash-type' });
  });
});

describe('verifyInputs: vault update leaf', () => {
  const payment = p2wpkh(userKey.compressed, TEST_NETWORK);
  const prevouts: Prevout[] = [
    { script: vault.script, amount: 500_000n },
    { script: payment.script, amount: AMOUNT },
  ];

  /** A deposit-shaped transaction: the vault and a payment input, the vault and a state record out. */
  function deposit(signers: Uint8Array[]): Transaction {
    const tx = new Transaction({ allowUnknownOutputs: true });
    tx.addInput({
      txid: fakeTxid(4),
      index: 0,
      witnessUtxo: prevouts[0]!,
      tapLeafScript: [vault.tapLeafScript.find(([, s]) => s.length === 69)!],
    });
    tx.addInput({ txid: fakeTxid(5), index: 2, witnessUtxo: prevouts[1]! });
    tx.addOutput({ script: vault.script, amount: 590_000n });
    tx.addOutput({
      script: stateRecordScript({
        action: 'd',
        unitDebt: 0n,
        vaultSats: 590_000n,
        quotePriceCents: 9_500_000n,
        thresholdCents: 0n,
        quoteStamp: 1_750_000_000,
        nonce: new Uint8Array(16).fill(7),
        expiry: 1_750_000_060,
      }),
      amount: 0n,
    });
    for (const key of signers) tx.signIdx(key, 0);
    tx.signIdx(userKey.privateKey, 1);
    tx.finalize();
    return tx;
  }

  it('accepts the vault spent with both the user and the guardian signature', () => {
    const tx = deposit([userKey.privateKey, guardianKey.privateKey]);
    expect(tx.getInput(0).finalScriptWitness).toHaveLength(4);
    expect(verifyInputs(tx.hex, prevouts)).toEqual({ ok: true });
  });

  it('refuses when the guardian signature is forged', () => {
    const tx = deposit([userKey.privateKey, guardianKey.privateKey]);
    expect(verifyInputs(withWitness(tx.hex, 0, flipSignatureByte), prevouts)).toEqual({
      ok: false,
      input: 0,
      reason: 'bad-signature',
    });
  });

  it('refuses when the user signature is swapped for a stranger one', () => {
    const tx = deposit([userKey.privateKey, guardianKey.privateKey]);
    const msg = tx.preimageWitnessV1(
      0,
      prevouts.map((p) => p.script),
      SigHash.DEFAULT,
      prevouts.map((p) => p.amount),
      -1,
      vault.updateLeaf.script,
      TAPSCRIPT_LEAF_VERSION,
    );
    const forged = withWitness(tx.hex, 0, (w) => [
      w[0]!,
      schnorr.sign(msg, strangerKey.privateKey),
      w[2]!,
      w[3]!,
    ]);
    expect(verifyInputs(forged, prevouts)).toMatchObject({
      ok: false,
      input: 0,
      reason: 'bad-signature',
    });
  });

  it('refuses a control block that commits to another vault', () => {
    const tx = deposit([userKey.privateKey, guardianKey.privateKey]);
    const otherVault = vaultOutput({
      vaultPubkey: userKey.xOnly,
      guardPubkey: guardianKey.xOnly,
      thresholdHash: new Uint8Array(20),
      network: TEST_NETWORK,
    });
    const hex = withWitness(tx.hex, 0, (w) => [
      w[0]!,
      w[1]!,
      w[2]!,
      otherVault.updateLeaf.controlBlock,
    ]);
    expect(verifyInputs(hex, prevouts)).toMatchObject({
      ok: false,
      input: 0,
      reason: 'bad-control-block',
    });
  });

  it('reports the failing input by index', () => {
    const tx = deposit([userKey.privateKey, guardianKey.privateKey]);
    expect(verifyInputs(withWitness(tx.hex, 1, flipSignatureByte), prevouts)).toEqual({
      ok: false,
      input: 1,
      reason: 'bad-signature',
    });
  });
});

describe('verifyInputs: vault liquidation leaf', () => {
  const prevouts: Prevout[] = [{ script: vault.script, amount: 500_000n }];

  /** The liquidation witness is assembled by hand: signature, revealed secret, script, control block. */
  function repossess(preimage: Uint8Array, signer = guardianKey.privateKey): string {
    const tx = new Transaction({ allowUnknownInputs: true });
    tx.addInput({ txid: fakeTxid(6), index: 0, witnessUtxo: prevouts[0]! });
    spendTo(tx);
    const msg = tx.preimageWitnessV1(
      0,
      [vault.script],
      SigHash.DEFAULT,
      [500_000n],
      -1,
      vault.liquidationLeaf.script,
      TAPSCRIPT_LEAF_VERSION,
    );
    const sig = schnorr.sign(msg, signer);
    tx.updateInput(
      0,
      {
        finalScriptWitness: [
          sig,
          preimage,
          vault.liquidationLeaf.script,
          vault.liquidationLeaf.controlBlock,
        ],
      },
      true,
    );
    return tx.hex;
  }

  it('accepts the guardian signature with the revealed threshold secret', () => {
    expect(verifyInputs(repossess(secret), prevouts)).toEqual({ ok: true });
  });

  it('refuses a wrong preimage', () => {
    const wrong = thresholdSecret(oracleSecret, 6_000_001n, 1_750_000_000);
    expect(verifyInputs(repossess(wrong), prevouts)).toEqual({
      ok: false,
      input: 0,
      reason: 'wrong-preimage',
    });
  });

  it('refuses the right preimage signed by someone other than the guardian', () => {
    expect(verifyInputs(repossess(secret, treasuryKey.privateKey), prevouts)).toEqual({
      ok: false,
      input: 0,
      reason: 'bad-signature',
    });
  });
});

describe('verifyInputs: anything else is non-standard', () => {
  it('refuses a leaf that is not one of the two vault leaves', () => {
    const lone = p2tr(
      undefined,
      [{ script: OutScript.encode({ type: 'tr_ns', pubkeys: [userKey.xOnly] }) }],
      TEST_NETWORK,
    );
    const input = { txid: fakeTxid(7), index: 0, tapLeafScript: lone.tapLeafScript };
    const { tx, prevouts } = signedSpend(lone.script, input);
    expect(verifyInputs(tx.hex, prevouts)).toEqual({ ok: false, input: 0, reason: 'non-standard' });
  });

  it('refuses a P2PKH prevout', () => {
    const legacy = p2pkh(userKey.compressed, TEST_NETWORK);
    const { tx, prevouts } = signedSpend(
      legacy.script,
      { txid: fakeTxid(8), index: 0 },
      { tx: { allowLegacyWitnessUtxo: true } },
    );
    expect(verifyInputs(tx.hex, prevouts)).toEqual({ ok: false, input: 0, reason: 'non-standard' });
  });

  it('refuses an annex on a key-path spend', () => {
    const taproot = p2tr(userKey.xOnly, undefined, TEST_NETWORK);
    const input = { txid: fakeTxid(9), index: 0, tapInternalKey: userKey.xOnly };
    const { tx, prevouts } = signedSpend(taproot.script, input);
    const hex = withWitness(tx.hex, 0, (w) => [...w, Uint8Array.of(0x50, 1)]);
    expect(verifyInputs(hex, prevouts)).toMatchObject({ ok: false, reason: 'non-standard' });
  });

  it('throws when the prevouts do not match the inputs', () => {
    const tx = new Transaction();
    tx.addInput({ txid: fakeTxid(10), index: 0 });
    spendTo(tx);
    expect(() => verifyInputs(tx, [])).toThrow('1 inputs but 0 prevouts');
  });
});

// The vault of layout 2 (docs/protocol.md, "Leaving without the guardians"): the owner's exit and
// the slots' settlement leaves, their heights pushed minimally, every leaf spending through the
// devnet's script check, a premature CLTV spend refused by it, and the exit rebuilt from chain
// facts alone (key, height, branch) with its weight as planned.
import { describe, expect, it } from 'vitest';
import { schnorr } from '@noble/curves/secp256k1.js';
import { hex } from '@scure/base';
import { NETWORK, p2wpkh, SigHash, TEST_NETWORK, Transaction } from '@scure/btc-signer';
import { fakeTxid, guardianKey, oracleSecret, testKey, userKey } from '../test/testKeys';
import { ExitError, exitLeafProof, exitWitnessWeight, planExit, signExit } from './exit-spend';
import { parseTimelockLeaf, pushHeight, timelockLeafScript } from './term-leaves';
import { verifyInputs } from './verify';
import {
  classifyTapLeaf,
  classifyVaultLeaf,
  TAPSCRIPT_LEAF_VERSION,
  thresholdHash,
  thresholdSecret,
  vaultOutput,
  type VaultLeaf,
  type VaultOutput,
} from './vault-script';

const AMOUNT = 500_000n;
const TERM = { settleHeight: 1_040, exitHeight: 1_060 };
const secret = thresholdSecret(oracleSecret, 7_037_500n, 1_750_000_000);
const PAY_TO = p2wpkh(testKey('recipient').compressed, TEST_NETWORK);
const guardians = [guardianKey, testKey('guardian set 2')];

function termed(keys = 1): VaultOutput {
  return vaultOutput({
    vaultPubkey: userKey.xOnly,
    guardPubkey: guardians.slice(0, keys).map((k) => k.xOnly),
    thresholdHash: thresholdHash(secret),
    network: TEST_NETWORK,
    term: TERM,
  });
}

interface SpendOptions {
  lockTime?: number;
  sequence?: number;
}

function spend(
  vault: VaultOutput,
  leaf: VaultLeaf,
  stack: (m: Uint8Array) => Uint8Array[],
  { lockTime = 0, sequence = 0xfffffffd }: SpendOptions = {},
) {
  const tx = new Transaction({ allowUnknownInputs: true, lockTime });
  tx.addInput({
    txid: fakeTxid(4),
    index: 0,
    sequence,
    witnessUtxo: { script: vault.script, amount: AMOUNT },
  });
  tx.addOutput({ script: PAY_TO.script, amount: AMOUNT - 1_000n });
  const m = tx.preimageWitnessV1(
    0,
    [vault.script],
    SigHash.DEFAULT,
    [AMOUNT],
    -1,
    leaf.script,
    TAPSCRIPT_LEAF_VERSION,
  );
  tx.updateInput(0, { finalScriptWitness: [...stack(m), leaf.script, leaf.controlBlock] }, true);
  return { tx, result: verifyInputs(tx.hex, [{ script: vault.script, amount: AMOUNT }]) };
}
const sig = (key: Uint8Array) => (m: Uint8Array) => [schnorr.sign(m, key)];

describe('term heights are minimal script numbers', () => {
  it.each([
    [1, '51'],
    [16, '60'],
    [17, '0111'],
    [127, '017f'],
    [128, '028000'],
    [255, '02ff00'],
    [256, '020001'],
    [32_767, '02ff7f'],
    [32_768, '03008000'],
    [499_999_999, '04ff64cd1d'],
  ])('%i pushes as %s and reads back', (height, pushed) => {
    expect(hex.encode(pushHeight(height))).toBe(pushed);
    const script = timelockLeafScript(height, userKey.xOnly);
    expect(parseTimelockLeaf(script)).toEqual({ height, pubkey: userKey.xOnly });
  });

  it('refuses a height out of range and reads no non-minimal push', () => {
    for (const bad of [0, -1, 1.5, 500_000_000]) expect(() => pushHeight(bad)).toThrow();
    const minimal = timelockLeafScript(17, userKey.xOnly);
    const padded = Uint8Array.of(0x02, 0x11, 0x00, ...minimal.subarray(2));
    expect(parseTimelockLeaf(padded)).toBeNull();
    expect(parseTimelockLeaf(minimal.subarray(0, -1))).toBeNull();
    expect(classifyTapLeaf(minimal)).toBeNull();
    expect(classifyVaultLeaf(minimal)).toMatchObject({ kind: 'timelock', height: 17 });
  });
});

describe('the layout 2 vault', () => {
  it('puts the exit beside the tree and each settlement at the head of its slot', () => {
    const vault = termed();
    expect(vault.layout).toBe(2);
    expect(vault.exitLeaf!.controlBlock.length).toBe(33 + 32);
    // [exit, [update, [settlement, liquidation]]]: update 2 deep, the others 3.
    expect(vault.updateLeaf.controlBlock.length).toBe(33 + 2 * 32);
    expect(vault.settlementLeaves![0]!.controlBlock.length).toBe(33 + 3 * 32);
    expect(vault.liquidationLeaf.controlBlock.length).toBe(33 + 3 * 32);
    expect(vault.tapLeafScript.map(([, s]) => classifyVaultLeaf(s.subarray(0, -1))?.kind)).toEqual([
      'update',
      'liquidation',
      'timelock',
      'timelock',
    ]);
    const untermed = vaultOutput({
      vaultPubkey: userKey.xOnly,
      guardPubkey: guardianKey.xOnly,
      thresholdHash: thresholdHash(secret),
      network: TEST_NETWORK,
    });
    expect(untermed.layout).toBe(1);
    expect(untermed.exitLeaf).toBeUndefined();
    expect(hex.encode(untermed.script)).not.toBe(hex.encode(vault.script));
  });

  it('refuses a term whose exit does not come after its settlement', () => {
    expect(() =>
      vaultOutput({
        vaultPubkey: userKey.xOnly,
        guardPubkey: guardianKey.xOnly,
        thresholdHash: thresholdHash(secret),
        network: TEST_NETWORK,
        term: { settleHeight: 100, exitHeight: 100 },
      }),
    ).toThrow(/after the settlement/);
  });

  it('spends through every leaf with the right keys and heights', () => {
    for (const keys of [1, 2]) {
      const vault = termed(keys);
      expect(
        spend(vault, vault.updateLeaf, (m) => [
          schnorr.sign(m, guardianKey.privateKey),
          schnorr.sign(m, userKey.privateKey),
        ]).result,
      ).toEqual({ ok: true });
      expect(
        spend(vault, vault.liquidationLeaf, (m) => [
          schnorr.sign(m, guardianKey.privateKey),
          secret,
        ]).result,
      ).toEqual({ ok: true });
      vault.settlementLeaves!.forEach((leaf, slot) => {
        const opts = { lockTime: TERM.settleHeight };
        expect(spend(vault, leaf, sig(guardians[slot]!.privateKey), opts).result).toEqual({
          ok: true,
        });
      });
      const exit = spend(vault, vault.exitLeaf!, sig(userKey.privateKey), {
        lockTime: TERM.exitHeight,
      });
      expect(exit.result).toEqual({ ok: true });
    }
  });

  it('refuses a spend before its height, with a final input, a time lock, or another key', () => {
    const vault = termed();
    const exit = vault.exitLeaf!;
    const owner = sig(userKey.privateKey);
    const refused = { ok: false, input: 0, reason: 'unsatisfied-locktime' };
    expect(spend(vault, exit, owner, { lockTime: TERM.exitHeight - 1 }).result).toEqual(refused);
    // The owner cannot use the guardians' earlier height: the settlement leaf names their key.
    expect(spend(vault, exit, owner, { lockTime: TERM.settleHeight }).result).toEqual(refused);
    expect(spend(vault, exit, owner, { lockTime: 0 }).result).toEqual(refused);
    expect(
      spend(vault, exit, owner, { lockTime: TERM.exitHeight, sequence: 0xffffffff }).result,
    ).toEqual(refused);
    expect(spend(vault, exit, owner, { lockTime: 1_750_000_000 }).result).toEqual(refused);
    expect(
      spend(vault, vault.settlementLeaves![0]!, sig(guardianKey.privateKey), {
        lockTime: TERM.settleHeight - 1,
      }).result,
    ).toEqual(refused);
    expect(
      spend(vault, exit, sig(guardianKey.privateKey), { lockTime: TERM.exitHeight }).result,
    ).toMatchObject({ ok: false, reason: 'bad-signature' });
    expect(
      spend(vault, vault.settlementLeaves![0]!, owner, { lockTime: TERM.exitHeight }).result,
    ).toMatchObject({ ok: false, reason: 'bad-signature' });
  });
});

describe('the exit from chain facts alone', () => {
  const vault = termed(2);
  const facts = {
    vaultPubkey: userKey.xOnly,
    exitHeight: TERM.exitHeight,
    exitBranch: vault.exitBranch!,
  };
  const request = {
    ...facts,
    utxo: { txid: fakeTxid(5), vout: 0, script: vault.script, amount: AMOUNT },
    toAddress: PAY_TO.address!,
    feeRate: 3,
    tipHeight: TERM.exitHeight,
    network: TEST_NETWORK,
  };

  it('rebuilds the vault output and the exit control block from key, height and branch', () => {
    const proof = exitLeafProof(facts);
    expect(hex.encode(proof.outputScript)).toBe(hex.encode(vault.script));
    expect(hex.encode(proof.controlBlock)).toBe(hex.encode(vault.exitLeaf!.controlBlock));
  });

  it('signs an exit the script check takes, of the planned weight and fee', () => {
    const plan = planExit(request);
    const tx = signExit(plan, userKey.privateKey);
    expect(verifyInputs(tx.hex, [{ script: vault.script, amount: AMOUNT }])).toEqual({ ok: true });
    expect(tx.lockTime).toBe(TERM.exitHeight);
    expect(tx.vsize).toBe(plan.vsize);
    const witness = tx.getInput(0).finalScriptWitness!;
    const witnessWeight = 1 + witness.reduce((sum, item) => sum + 1 + item.length, 0);
    expect(witnessWeight).toBe(exitWitnessWeight(plan.proof.script.length));
    expect(plan.feeSats).toBe(BigInt(plan.vsize * 3));
    expect(plan.sendSats + plan.feeSats).toBe(AMOUNT);
    expect(tx.getOutput(0).amount).toBe(plan.sendSats);
  });

  it('builds the exit whichever parity the output key has', () => {
    const parities = new Set<number>();
    for (let height = 2_000; height < 2_010; height++) {
      const v = vaultOutput({
        vaultPubkey: userKey.xOnly,
        guardPubkey: guardianKey.xOnly,
        thresholdHash: thresholdHash(secret),
        network: TEST_NETWORK,
        term: { settleHeight: height - 10, exitHeight: height },
      });
      parities.add(v.exitLeaf!.controlBlock[0]! & 1);
      const plan = planExit({
        ...request,
        exitHeight: height,
        exitBranch: v.exitBranch!,
        tipHeight: height,
        utxo: { ...request.utxo, script: v.script },
      });
      const tx = signExit(plan, userKey.privateKey);
      expect(verifyInputs(tx.hex, [{ script: v.script, amount: AMOUNT }])).toEqual({ ok: true });
    }
    expect([...parities].sort()).toEqual([0, 1]);
  });

  const refusals: Array<[string, Partial<typeof request>, string]> = [
    ['another key', { vaultPubkey: guardianKey.xOnly }, 'foreign-script'],
    [
      'another height',
      { exitHeight: TERM.exitHeight + 1, tipHeight: TERM.exitHeight + 1 },
      'foreign-script',
    ],
    ['another output', { utxo: { ...request.utxo, script: PAY_TO.script } }, 'foreign-script'],
    ['a chain before the exit height', { tipHeight: TERM.exitHeight - 1 }, 'before-term'],
    ['a fee rate of 0', { feeRate: 0 }, 'bad-fee'],
    ['a fractional fee rate', { feeRate: 1.5 }, 'bad-fee'],
    ['a fee rate past the cap', { feeRate: 1_001 }, 'bad-fee'],
    [
      'a mainnet address',
      { toAddress: p2wpkh(testKey('recipient').compressed, NETWORK).address! },
      'bad-address',
    ],
    ['a malformed address', { toAddress: 'tb1qnotanaddress' }, 'bad-address'],
    ['a fee that leaves dust', { utxo: { ...request.utxo, amount: 600n } }, 'dust'],
  ];
  it.each(refusals)('refuses %s before anything is signed', (_what, change, reason) => {
    let caught: unknown;
    try {
      planExit({ ...request, ...change });
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ExitError);
    expect((caught as ExitError).reason).toBe(reason);
    expect((caught as ExitError).message).toMatch(/\.$/);
  });
});

// The vault tree with up to three guardian keys and three oracle commitments
// (docs/protocol.md "The vault output"): the one-key one-hash output is byte for byte the one vaults
// have always had, every leaf of every shape spends through the devnet's script check, and the
// wrong oracle's secret or the other slot's key does not.
import { describe, expect, it } from 'vitest';
import { schnorr } from '@noble/curves/secp256k1.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { hex } from '@scure/base';
import { p2wpkh, SigHash, TEST_NETWORK, Transaction } from '@scure/btc-signer';
import { tapLeafHash } from '@scure/btc-signer/payment.js';
import { compareBytes, tagSchnorr } from '@scure/btc-signer/utils.js';
import { VAULT_MAX_GUARD_COUNT, VAULT_MAX_ORACLE_COUNT } from '@unit/protocol';
import { fakeTxid, guardianKey, oracleSecret, testKey, userKey } from '../test/testKeys';
import { verifyInputs, type VerifyResult } from './verify';
import {
  classifyTapLeaf,
  TAPSCRIPT_LEAF_VERSION,
  thresholdHash,
  thresholdSecret,
  vaultOutput,
  type VaultLeaf,
  type VaultOutput,
} from './vault-script';

const AMOUNT = 500_000n;
const PAY_TO = p2wpkh(testKey('recipient').compressed, TEST_NETWORK).script;
const ZERO_AUX = new Uint8Array(32);

/** Guardian keys by slot: today's guardian, then the next sets'. */
const guardians = [guardianKey, testKey('guardian set 2'), testKey('guardian set 3')];
/** One oracle secret per oracle; each derives its own threshold secret for the same quote. */
const oracleSecrets = [oracleSecret, sha256(Uint8Array.of(2)), sha256(Uint8Array.of(3))];
const secrets = oracleSecrets.map((o) => thresholdSecret(o, 7_037_500n, 1_750_000_000));
const hashes = secrets.map(thresholdHash);

function vaultWith(keyCount: number, hashCount: number): VaultOutput {
  return vaultOutput({
    vaultPubkey: userKey.xOnly,
    guardPubkey: guardians.slice(0, keyCount).map((k) => k.xOnly),
    thresholdHash: hashes.slice(0, hashCount),
    network: TEST_NETWORK,
  });
}

/** A one-input spend of `vault` through `leaf`; `stack` gets the leaf's sighash. */
function spend(
  vault: VaultOutput,
  leaf: VaultLeaf,
  stack: (sighash: Uint8Array) => Uint8Array[],
): VerifyResult {
  const tx = new Transaction({ allowUnknownInputs: true });
  tx.addInput({
    txid: fakeTxid(9),
    index: 0,
    witnessUtxo: { script: vault.script, amount: AMOUNT },
  });
  tx.addOutput({ script: PAY_TO, amount: AMOUNT - 2_000n });
  const sighash = tx.preimageWitnessV1(
    0,
    [vault.script],
    SigHash.DEFAULT,
    [AMOUNT],
    -1,
    leaf.script,
    TAPSCRIPT_LEAF_VERSION,
  );
  tx.updateInput(
    0,
    { finalScriptWitness: [...stack(sighash), leaf.script, leaf.controlBlock] },
    true,
  );
  return verifyInputs(tx.hex, [{ script: vault.script, amount: AMOUNT }]);
}

/** Update leaf witness: the guardian's signature under the vault key's (the script pops the vault's first). */
const updateStack =
  (guardian: Uint8Array, user = userKey.privateKey) =>
  (m: Uint8Array) => [schnorr.sign(m, guardian), schnorr.sign(m, user)];
const liquidationStack = (guardian: Uint8Array, secret: Uint8Array) => (m: Uint8Array) => [
  schnorr.sign(m, guardian),
  secret,
];

describe('one guardian key and one threshold hash: the output vaults have always had', () => {
  // Recorded from the two-leaf `vaultOutput` before guardian slots existed (commit 849d166).
  const today = {
    script: '51206c32507532ae9a90a72f515cf9aaf84c138f33648bc4ef2e28df0222bf2d7d19',
    address: 'tb1pdse9qafj46dfpfe029w0n2hcfsfc7vmy30zw7t3gmupz90ed05vsqsgem8',
    root: '0ee0e313a6b8addd2990806fb636a81949dcad9f709207d1d1e4f67ceed921ab',
    updateControl:
      'c150929b74c1a04954b78b4b6035e97a5e078a5a0f28ec96d547bfee9ace803ac0ae136eedf0b9b1347045d3688b5306534ceea14b9c566000c3a3efcce505455c',
    liquidationControl:
      'c150929b74c1a04954b78b4b6035e97a5e078a5a0f28ec96d547bfee9ace803ac0af7f5364a5bbdd3adce7f471697e3c55b2f3f316271e2cd4b7db2e9d945fb35f',
    updateSighash: '8d4f015246333fdd299f35850cdcc66bb90ab8274166e7f08c81b933144b57c5',
    updateGuardianSig:
      '73d2cfefb2dead1900d7b67b890c8be00f13676dbbc8345fee8e75e9db1626619c1bd6348d6fe8c873e8ec23cc5b9e9ae6270a28766d139f41f0ad299d364fe5',
    liquidationSighash: '69a05dc7495c0fa8115084c77e98992ea2eac921a7abab3ee2a1be4c298c9f6d',
    liquidationGuardianSig:
      '2591e32d800c434e62e838f75b608bcfa0767d460522e0b637c4bb0bcbfcb5b2558fb6d64f6224781979fec1b41596a7a0472223c0962883f4f0c2ce015b0945',
  };
  const single = vaultOutput({
    vaultPubkey: userKey.xOnly,
    guardPubkey: guardianKey.xOnly,
    thresholdHash: hashes[0]!,
    network: TEST_NETWORK,
  });

  it('has the same script, address, merkle root and control blocks', () => {
    expect(hex.encode(single.script)).toBe(today.script);
    expect(single.address).toBe(today.address);
    expect(hex.encode(single.tapMerkleRoot)).toBe(today.root);
    expect(hex.encode(single.updateLeaf.controlBlock)).toBe(today.updateControl);
    expect(hex.encode(single.liquidationLeaf.controlBlock)).toBe(today.liquidationControl);
    // Callers take tapLeafScript[0] as the update leaf.
    expect(single.tapLeafScript.map(([, s]) => classifyTapLeaf(s.subarray(0, -1))?.kind)).toEqual([
      'update',
      'liquidation',
    ]);
  });

  it('has the same leaf sighashes, so the same signatures', () => {
    const sighashes: string[] = [];
    const signatures: string[] = [];
    for (const leaf of [single.updateLeaf, single.liquidationLeaf]) {
      // The transaction the vector was recorded with: fakeTxid(1):0 back to the vault, 1,000 fee.
      const tx = new Transaction({ allowUnknownOutputs: true });
      tx.addInput({
        txid: fakeTxid(1),
        index: 0,
        witnessUtxo: { script: single.script, amount: AMOUNT },
      });
      tx.addOutput({ script: single.script, amount: AMOUNT - 1_000n });
      const m = tx.preimageWitnessV1(
        0,
        [single.script],
        SigHash.DEFAULT,
        [AMOUNT],
        -1,
        leaf.script,
        0xc0,
      );
      sighashes.push(hex.encode(m));
      signatures.push(hex.encode(schnorr.sign(m, guardianKey.privateKey, ZERO_AUX)));
    }
    expect(sighashes).toEqual([today.updateSighash, today.liquidationSighash]);
    expect(signatures).toEqual([today.updateGuardianSig, today.liquidationGuardianSig]);
  });

  it('is the same whether the key and hash come alone or as one-element lists', () => {
    const listed = vaultWith(1, 1);
    expect(listed.address).toBe(single.address);
    expect(listed.tapLeafScript).toEqual(single.tapLeafScript);
    expect(listed.updateLeaves).toEqual([single.updateLeaf]);
    expect(listed.liquidationLeaves).toEqual([[single.liquidationLeaf]]);
  });
});

describe('two guardian keys and three threshold hashes', () => {
  const vault = vaultWith(2, 3);

  it('is fixed: address, merkle root and the depth of every leaf', () => {
    expect(vault.address).toBe('tb1phgdlczfv240skyzan2d8aktehuyxkhr30vg7d0kjr3rn62t7seus3qd93r');
    expect(hex.encode(vault.tapMerkleRoot)).toBe(
      'e69be0b2f22ea3775bdf1e662287d7533e340a3b29015ec4fbf6882bee9e2f36',
    );
    // Per slot: the update leaf at depth 2, oracle 0's liquidation leaf at 3, oracles 1 and 2 at 4.
    expect(vault.tapLeafScript.map(([cb]) => cb.merklePath.length)).toEqual([
      2, 3, 4, 4, 2, 3, 4, 4,
    ]);
  });

  it('has the tree docs/protocol.md draws: [[u0, [l00, [l01, l02]]], [u1, [l10, [l11, l12]]]]', () => {
    const leafHash = (script: Uint8Array) => tapLeafHash(script, TAPSCRIPT_LEAF_VERSION);
    const branch = (a: Uint8Array, b: Uint8Array) =>
      compareBytes(a, b) < 0 ? tagSchnorr('TapBranch', a, b) : tagSchnorr('TapBranch', b, a);
    const slot = (s: number) => {
      const [l0, l1, l2] = vault.liquidationLeaves[s]!.map((leaf) => leafHash(leaf.script));
      return branch(leafHash(vault.updateLeaves[s]!.script), branch(l0!, branch(l1!, l2!)));
    };
    expect(hex.encode(branch(slot(0), slot(1)))).toBe(hex.encode(vault.tapMerkleRoot));
  });

  it('lists its leaves slot by slot: the update leaf, then one liquidation leaf per oracle', () => {
    const leaves = vault.tapLeafScript.map(([, s]) => classifyTapLeaf(s.subarray(0, -1))!);
    const described = leaves.map((leaf) =>
      leaf.kind === 'update'
        ? `update/${guardians.findIndex((g) => hex.encode(g.xOnly) === hex.encode(leaf.guardPubkey))}`
        : `liquidation/${guardians.findIndex((g) => hex.encode(g.xOnly) === hex.encode(leaf.guardPubkey))}/${hashes.findIndex((h) => hex.encode(h) === hex.encode(leaf.thresholdHash))}`,
    );
    expect(described).toEqual([
      'update/0',
      'liquidation/0/0',
      'liquidation/0/1',
      'liquidation/0/2',
      'update/1',
      'liquidation/1/0',
      'liquidation/1/1',
      'liquidation/1/2',
    ]);
    expect(vault.updateLeaf).toEqual(vault.updateLeaves[0]);
    expect(vault.liquidationLeaf).toEqual(vault.liquidationLeaves[0]![0]);
  });

  it("refuses a liquidation with the wrong oracle's secret, for every leaf", () => {
    for (let slot = 0; slot < 2; slot++)
      for (let oracle = 0; oracle < 3; oracle++) {
        const leaf = vault.liquidationLeaves[slot]![oracle]!;
        const wrong = secrets[(oracle + 1) % 3]!;
        expect(spend(vault, leaf, liquidationStack(guardians[slot]!.privateKey, wrong))).toEqual({
          ok: false,
          input: 0,
          reason: 'wrong-preimage',
        });
      }
  });

  it("refuses the other slot's guardian key on a liquidation leaf and on an update leaf", () => {
    for (let slot = 0; slot < 2; slot++) {
      const other = guardians[1 - slot]!.privateKey;
      for (let oracle = 0; oracle < 3; oracle++) {
        const leaf = vault.liquidationLeaves[slot]![oracle]!;
        expect(spend(vault, leaf, liquidationStack(other, secrets[oracle]!))).toMatchObject({
          ok: false,
          reason: 'bad-signature',
        });
      }
      expect(spend(vault, vault.updateLeaves[slot]!, updateStack(other))).toMatchObject({
        ok: false,
        reason: 'bad-signature',
      });
    }
  });

  it("refuses a leaf shown with another leaf's control block", () => {
    const slot0 = vault.liquidationLeaves[0]![1]!;
    const slot1 = vault.liquidationLeaves[1]![1]!;
    const mixed = { script: slot0.script, controlBlock: slot1.controlBlock };
    expect(
      spend(vault, mixed, liquidationStack(guardians[0]!.privateKey, secrets[1]!)),
    ).toMatchObject({ ok: false, reason: 'bad-control-block' });
  });
});

describe('every shape from one to three keys and hashes', () => {
  for (let keyCount = 1; keyCount <= VAULT_MAX_GUARD_COUNT; keyCount++)
    for (let hashCount = 1; hashCount <= VAULT_MAX_ORACLE_COUNT; hashCount++)
      it(`${keyCount} key(s), ${hashCount} hash(es): every leaf spends through the script check`, () => {
        const vault = vaultWith(keyCount, hashCount);
        expect(vault.tapLeafScript).toHaveLength(keyCount * (1 + hashCount));
        for (let slot = 0; slot < keyCount; slot++) {
          const guardian = guardians[slot]!.privateKey;
          expect(spend(vault, vault.updateLeaves[slot]!, updateStack(guardian))).toEqual({
            ok: true,
          });
          for (let oracle = 0; oracle < hashCount; oracle++)
            expect(
              spend(
                vault,
                vault.liquidationLeaves[slot]![oracle]!,
                liquidationStack(guardian, secrets[oracle]!),
              ),
            ).toEqual({ ok: true });
        }
      });

  it("puts every leaf at the depth docs/protocol.md's table gives", () => {
    // Depth of each slot's subtree, and of each liquidation leaf inside its slot's subtree.
    const slotDepth = [[0], [1, 1], [1, 2, 2]];
    const inSlot = [[1], [2, 2], [2, 3, 3]];
    for (let k = 1; k <= 3; k++)
      for (let m = 1; m <= 3; m++) {
        const vault = vaultWith(k, m);
        const depth = (leaf: VaultLeaf) => (leaf.controlBlock.length - 33) / 32;
        const slots = slotDepth[k - 1]!;
        expect(vault.updateLeaves.map(depth)).toEqual(slots.map((d) => d + 1));
        expect(vault.liquidationLeaves.map((leaves) => leaves.map(depth))).toEqual(
          slots.map((d) => inSlot[m - 1]!.map((i) => d + i)),
        );
      }
  });

  it('gives a different output for every shape', () => {
    const addresses = new Set<string>();
    for (let k = 1; k <= 3; k++)
      for (let m = 1; m <= 3; m++) addresses.add(vaultWith(k, m).address);
    expect(addresses.size).toBe(9);
  });
});

describe('refusals', () => {
  const base = { vaultPubkey: userKey.xOnly, network: TEST_NETWORK };
  const fourKeys = [...guardians, testKey('guardian set 4')].map((k) => k.xOnly);
  const fourHashes = [...hashes, thresholdHash(sha256(Uint8Array.of(4)))];

  it('refuses no guardian key or more than VAULT_MAX_GUARD_COUNT', () => {
    expect(VAULT_MAX_GUARD_COUNT).toBe(3);
    expect(() => vaultOutput({ ...base, guardPubkey: [], thresholdHash: hashes[0]! })).toThrow(
      'a vault commits to 1 to 3 guardian keys, got 0',
    );
    expect(() =>
      vaultOutput({ ...base, guardPubkey: fourKeys, thresholdHash: hashes[0]! }),
    ).toThrow('a vault commits to 1 to 3 guardian keys, got 4');
  });

  it('refuses no threshold hash or more than VAULT_MAX_ORACLE_COUNT', () => {
    expect(VAULT_MAX_ORACLE_COUNT).toBe(3);
    const guardPubkey = guardianKey.xOnly;
    expect(() => vaultOutput({ ...base, guardPubkey, thresholdHash: [] })).toThrow(
      'a vault commits to 1 to 3 threshold hashes, got 0',
    );
    expect(() => vaultOutput({ ...base, guardPubkey, thresholdHash: fourHashes })).toThrow(
      'a vault commits to 1 to 3 threshold hashes, got 4',
    );
  });

  it('refuses a repeated key or hash (it would repeat a leaf) and a wrong length', () => {
    const g = guardianKey.xOnly;
    expect(() => vaultOutput({ ...base, guardPubkey: [g, g], thresholdHash: hashes[0]! })).toThrow(
      'guard_pubkey 1 repeats an earlier one',
    );
    expect(() =>
      vaultOutput({ ...base, guardPubkey: g, thresholdHash: [hashes[0]!, hashes[1]!, hashes[0]!] }),
    ).toThrow('threshold_hash 2 repeats an earlier one');
    expect(() =>
      vaultOutput({ ...base, guardPubkey: [g, userKey.compressed], thresholdHash: hashes[0]! }),
    ).toThrow('guard_pubkey 1 must be 32 bytes, got 33');
  });
});

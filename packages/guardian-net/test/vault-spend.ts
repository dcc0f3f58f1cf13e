// A vault whose guard_pubkey is the guardians' group key, and a spend of its update leaf: the
// user signs with their key, the guardians' FROST signature fills the group key's slot, and the
// project's own check (`verifyInputs` of @unit/bitcoin, what the devnet runs) judges the result.
import { schnorr, secp256k1 } from '@noble/curves/secp256k1.js';
import { SigHash, TEST_NETWORK, Transaction, p2wpkh } from '@scure/btc-signer';
import { tapLeafHash } from '@scure/btc-signer/payment.js';
import { equalBytes } from '@scure/btc-signer/utils.js';
import { thresholdHash, verifyInputs, vaultOutput, TAPSCRIPT_LEAF_VERSION } from '@unit/bitcoin';

interface Prevout {
  script: Uint8Array;
  amount: bigint;
}

/** One spend of a vault's update leaf into `output`. */
export function spendUpdateLeaf(
  user: { secretKey: Uint8Array; publicKey: Uint8Array },
  guardKey: Uint8Array,
  from: { txid: Uint8Array | string; index: number; amount: bigint },
  output: Prevout,
) {
  const vault = vaultOutput({
    vaultPubkey: user.publicKey,
    guardPubkey: guardKey,
    thresholdHash: thresholdHash(new Uint8Array(32).fill(9)),
    network: TEST_NETWORK,
  });
  const prevouts = [{ script: vault.script, amount: from.amount }];
  const tx = new Transaction();
  tx.addInput({
    txid: from.txid,
    index: from.index,
    witnessUtxo: prevouts[0]!,
    tapLeafScript: [
      vault.tapLeafScript.find(([, s]) => equalBytes(s.subarray(0, -1), vault.updateLeaf.script))!,
    ],
  });
  tx.addOutput(output);
  const sighash = tx.preimageWitnessV1(
    0,
    prevouts.map((p) => p.script),
    SigHash.DEFAULT,
    prevouts.map((p) => p.amount),
    -1,
    vault.updateLeaf.script,
    TAPSCRIPT_LEAF_VERSION,
  );
  /** Adds the user's and the guardians' signatures, finalizes, and runs the project's check. */
  const finish = (guardianSig: Uint8Array) => {
    tx.signIdx(user.secretKey, 0);
    tx.updateInput(0, {
      tapScriptSig: [
        [{ pubKey: guardKey, leafHash: tapLeafHash(vault.updateLeaf.script) }, guardianSig],
      ],
    });
    tx.finalize();
    return { result: verifyInputs(tx.hex, prevouts), txid: tx.id };
  };
  return { sighash, finish, vaultScript: vault.script };
}

/** One vault under `groupKey` spent by its update leaf to a plain output. */
export function vaultSpend(groupKey: Uint8Array) {
  const { sighash, finish } = spendUpdateLeaf(
    schnorr.keygen(),
    groupKey,
    { txid: new Uint8Array(32).fill(4), index: 0, amount: 500_000n },
    { script: p2wpkh(secp256k1.keygen().publicKey, TEST_NETWORK).script, amount: 499_000n },
  );
  return { sighash, finish: (guardianSig: Uint8Array) => finish(guardianSig).result };
}

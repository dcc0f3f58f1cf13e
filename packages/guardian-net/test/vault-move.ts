// A vault's move to the next guardian set, as two spends of update leaves: the first spends a vault
// whose guard_pubkey is the old group key into a vault output whose leaves hold the new group key
// (the same user key), the second spends that new output. The user signs each with their key, the
// guardians' FROST signature fills the group key's slot, and `verifyInputs` of @unit/bitcoin (what
// the devnet runs) judges each transaction.
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
function spendUpdateLeaf(
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

/** The two hops: old group key -> vault under the new group key -> a plain output. */
export function vaultMove(oldKey: Uint8Array, newKey: Uint8Array) {
  const user = schnorr.keygen();
  const next = vaultOutput({
    vaultPubkey: user.publicKey,
    guardPubkey: newKey,
    thresholdHash: thresholdHash(new Uint8Array(32).fill(9)),
    network: TEST_NETWORK,
  });
  const move = spendUpdateLeaf(
    user,
    oldKey,
    { txid: new Uint8Array(32).fill(4), index: 0, amount: 500_000n },
    { script: next.script, amount: 499_000n },
  );
  const payee = p2wpkh(secp256k1.keygen().publicKey, TEST_NETWORK).script;
  /** The spend of the moved vault, once the move's txid is known (the same tx at every call). */
  const spendMoved = (moveTxid: string) =>
    spendUpdateLeaf(
      user,
      newKey,
      { txid: moveTxid, index: 0, amount: 499_000n },
      { script: payee, amount: 498_000n },
    );
  return { move, next, spendMoved };
}

// A vault's move to the next guardian set, as two spends of update leaves: the first spends a vault
// whose guard_pubkey is the old group key into a vault output whose leaves hold the new group key
// (the same user key), the second spends that new output. The user signs each with their key, the
// guardians' FROST signature fills the group key's slot, and `verifyInputs` of @unit/bitcoin (what
// the devnet runs) judges each transaction.
import { schnorr, secp256k1 } from '@noble/curves/secp256k1.js';
import { TEST_NETWORK, p2wpkh } from '@scure/btc-signer';
import { thresholdHash, vaultOutput } from '@unit/bitcoin';
import { spendUpdateLeaf } from './vault-spend';

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

// The bench's fixed vault spend: a vault whose guard_pubkey is either a single guardian key (made
// here) or the network's group key, and a spend of its update leaf that the user has already
// signed, as a PSBT. Both ways of co-signing start from these bytes and end in the same
// `finalize` and `verifyInputs` of @unit/bitcoin (the devnet's check).
import { schnorr, secp256k1 } from '@noble/curves/secp256k1.js';
import { SigHash, TEST_NETWORK, Transaction, p2wpkh } from '@scure/btc-signer';
import { tapLeafHash } from '@scure/btc-signer/payment.js';
import {
  cosignVaultInput,
  finalize,
  thresholdHash,
  verifyInputs,
  vaultOutput,
  TAPSCRIPT_LEAF_VERSION,
} from '@unit/bitcoin';

export interface FixedSpend {
  /** Today's single guardian: its key signs the vault input, then finalize and check. */
  cosignAlone(): void;
  /** The BIP-341 sighash of the update leaf, read from the PSBT as a coordinator would. */
  sighash(): Uint8Array;
  /** Puts the group signature in the guardian's slot, finalizes, and runs the check. */
  finish(guardianSig: Uint8Array): ReturnType<typeof verifyInputs>;
}

/** With `groupKey` the network's spend (no local key signs it); without, a single key's. */
export function fixedSpend(groupKey?: Uint8Array): FixedSpend {
  const guardian = schnorr.keygen();
  const guardPubkey = groupKey ?? guardian.publicKey;
  const user = schnorr.keygen();
  const vault = vaultOutput({
    vaultPubkey: user.publicKey,
    guardPubkey,
    thresholdHash: thresholdHash(new Uint8Array(32).fill(9)),
    network: TEST_NETWORK,
  });
  const prevouts = [{ script: vault.script, amount: 500_000n }];
  const tx = new Transaction();
  tx.addInput({
    txid: new Uint8Array(32).fill(4),
    index: 0,
    witnessUtxo: prevouts[0]!,
    tapLeafScript: [vault.tapLeafScript.find(([, s]) => s.length === 69)!],
  });
  tx.addOutput({
    script: p2wpkh(secp256k1.keygen().publicKey, TEST_NETWORK).script,
    amount: 499_000n,
  });
  tx.signIdx(user.secretKey, 0);
  const psbt = tx.toPSBT(0);
  const check = (signed: Uint8Array) => {
    const result = verifyInputs(finalize(signed), prevouts);
    if (!result.ok) throw new Error(`co-signed spend refused: ${JSON.stringify(result)}`);
    return result;
  };
  return {
    cosignAlone: () => void check(cosignVaultInput(psbt, guardian.secretKey, 0)),
    sighash: () =>
      Transaction.fromPSBT(psbt).preimageWitnessV1(
        0,
        prevouts.map((p) => p.script),
        SigHash.DEFAULT,
        prevouts.map((p) => p.amount),
        -1,
        vault.updateLeaf.script,
        TAPSCRIPT_LEAF_VERSION,
      ),
    finish: (guardianSig) => {
      const spend = Transaction.fromPSBT(psbt);
      spend.updateInput(0, {
        tapScriptSig: [
          [{ pubKey: guardPubkey, leafHash: tapLeafHash(vault.updateLeaf.script) }, guardianSig],
        ],
      });
      return check(spend.toPSBT(0));
    },
  };
}

// Signing the PSBTs of builders.ts: the wallet's inputs, the guardian's co-signature on the vault,
// the treasury's key-path signature, the liquidation-leaf witness, and finalisation to raw hex.
import { hex } from '@scure/base';
import { TaprootControlBlock, Transaction } from '@scure/btc-signer';
import { tapLeafHash } from '@scure/btc-signer/payment.js';
import { equalBytes, hash160, pubSchnorr } from '@scure/btc-signer/utils.js';
import { classifyTapLeaf } from '../core';
import { VAULT_TX_OPTS } from './vault-tx';

function load(psbt: Uint8Array): Transaction {
  return Transaction.fromPSBT(psbt, VAULT_TX_OPTS);
}

function signIndexes(
  psbt: Uint8Array,
  privateKey: Uint8Array,
  indexes: readonly number[],
): Uint8Array {
  const tx = load(psbt);
  // btc-signer picks the spend path from the input: ECDSA for P2WPKH / P2SH-P2WPKH, a tweaked
  // key-path signature for P2TR with tapInternalKey, and a leaf signature where the key is in a leaf.
  for (const index of indexes) tx.signIdx(privateKey, index);
  return tx.toPSBT(0);
}

/**
 * The wallet's signatures (what a wallet does for the devnet wallet and in tests): P2WPKH,
 * P2SH-P2WPKH, P2TR key path, and the vault's update leaf with the vault key.
 */
export function signUserInputs(
  psbt: Uint8Array,
  privateKey: Uint8Array,
  indexes: readonly number[],
): Uint8Array {
  return signIndexes(psbt, privateKey, indexes);
}

/**
 * The guardian's signature on a vault input's leaf (update leaf, or liquidation leaf on repossess):
 * every leaf of the input's `tapLeafScript` that holds this key.
 */
export function cosignVaultInput(
  psbt: Uint8Array,
  guardianKey: Uint8Array,
  index: number,
): Uint8Array {
  return signIndexes(psbt, guardianKey, [index]);
}

/** The treasury UNIT input, key path with the guardian's treasury key. */
export function signTreasuryInput(
  psbt: Uint8Array,
  treasuryKey: Uint8Array,
  index: number,
): Uint8Array {
  return signIndexes(psbt, treasuryKey, [index]);
}

/**
 * Completes the liquidated vault's input on repossess: the guardian signs the liquidation leaf and
 * the witness is assembled by hand, since no library template knows the leaf:
 * `<guardian signature> <secret> <leaf script> <control block>` (the script hashes the secret first,
 * then checks the signature). Of the input's liquidation leaves, the one of this guardian key that
 * the secret opens is used; when none is, the first of this key (the witness then fails the
 * script check, as it should).
 */
export function addLiquidationWitness(
  psbt: Uint8Array,
  index: number,
  { secret, guardianKey }: { secret: Uint8Array; guardianKey: Uint8Array },
): Uint8Array {
  const tx = load(cosignVaultInput(psbt, guardianKey, index));
  const input = tx.getInput(index);
  const guardPub = pubSchnorr(guardianKey);
  const ours = (input.tapLeafScript ?? []).filter(([, script]) => {
    const leaf = classifyTapLeaf(script.subarray(0, -1));
    return leaf?.kind === 'liquidation' && equalBytes(leaf.guardPubkey, guardPub);
  });
  const opens = ours.find(([, script]) => {
    const leaf = classifyTapLeaf(script.subarray(0, -1));
    return leaf?.kind === 'liquidation' && equalBytes(leaf.thresholdHash, hash160(secret));
  });
  const leaf = opens ?? ours[0];
  if (!leaf) throw new Error(`input ${index} has no liquidation leaf`);
  const [controlBlock, scriptWithVersion] = leaf;
  const script = scriptWithVersion.subarray(0, -1);
  const leafHash = tapLeafHash(script, scriptWithVersion[scriptWithVersion.length - 1]);
  const signature = input.tapScriptSig?.find(
    ([sig]) => equalBytes(sig.pubKey, guardPub) && equalBytes(sig.leafHash, leafHash),
  )?.[1];
  if (!signature) throw new Error('guardian signature missing');
  tx.updateInput(
    index,
    {
      finalScriptWitness: [signature, secret, script, TaprootControlBlock.encode(controlBlock)],
    },
    true,
  );
  return tx.toPSBT(0);
}

/** Finalises every input not yet final and returns the raw transaction as hex. */
export function finalize(psbt: Uint8Array): string {
  const tx = load(psbt);
  for (let i = 0; i < tx.inputsLength; i++) {
    if (!tx.getInput(i).finalScriptWitness) tx.finalizeIdx(i);
  }
  return hex.encode(tx.extract());
}

// The BIP-341 digests a guardian signs on a vault transaction's fixed inputs, and the check that the
// vault key signed its vault input: pure functions of the PSBT and its prevouts, so the app server's
// guardian and every guardian of the network compute the very same bytes.
import { schnorr } from '@noble/curves/secp256k1.js';
import { Transaction } from '@scure/btc-signer';
import { tapLeafHash } from '@scure/btc-signer/payment.js';
import { equalBytes } from '@scure/btc-signer/utils.js';
import { TAPSCRIPT_LEAF_VERSION, updateLeafScript } from './vault-script';

/** SIGHASH_DEFAULT: what the guardian signs on every input. */
const SIGHASH_DEFAULT = 0;

/** An input's prevout as the signatures commit to it. */
export interface SigningPrevout {
  script: Uint8Array;
  amount: bigint;
}

/**
 * The 32-byte BIP-341 sighash (SIGHASH_DEFAULT) of input `index`: a script-path spend of
 * `leafScript` (tapscript leaf version), or the key path when `leafScript` is null.
 */
export function taprootSighash(
  tx: Transaction,
  prevouts: readonly SigningPrevout[],
  index: number,
  leafScript: Uint8Array | null,
): Uint8Array {
  const scripts = prevouts.map((p) => p.script);
  const amounts = prevouts.map((p) => p.amount);
  return leafScript === null
    ? tx.preimageWitnessV1(index, scripts, SIGHASH_DEFAULT, amounts)
    : tx.preimageWitnessV1(
        index,
        scripts,
        SIGHASH_DEFAULT,
        amounts,
        -1,
        leafScript,
        TAPSCRIPT_LEAF_VERSION,
      );
}

/**
 * Whether the vault key signed input `index` through the update leaf `<vault key> <guard key>`,
 * over the given prevouts: the signature the PSBT holds for that key and leaf must verify. CPU only.
 */
export function vaultSignatureValid(
  tx: Transaction,
  prevouts: readonly SigningPrevout[],
  index: number,
  vaultPubkey: Uint8Array,
  guardPubkey: Uint8Array,
): boolean {
  if (index >= tx.inputsLength || index >= prevouts.length) return false;
  const leafScript = updateLeafScript(vaultPubkey, guardPubkey);
  const leafHash = tapLeafHash(leafScript, TAPSCRIPT_LEAF_VERSION);
  const entry = tx
    .getInput(index)
    .tapScriptSig?.find(
      ([key]) => equalBytes(key.pubKey, vaultPubkey) && equalBytes(key.leafHash, leafHash),
    );
  if (!entry) return false;
  const signature = entry[1];
  if (signature.length !== 64 && signature.length !== 65) return false;
  const hashType = signature.length === 65 ? signature[64]! : SIGHASH_DEFAULT;
  try {
    const message = tx.preimageWitnessV1(
      index,
      prevouts.map((p) => p.script),
      hashType,
      prevouts.map((p) => p.amount),
      -1,
      leafScript,
      TAPSCRIPT_LEAF_VERSION,
    );
    return schnorr.verify(signature.subarray(0, 64), message, vaultPubkey);
  } catch {
    return false;
  }
}

// The exit page's signing (docs/protocol.md, "Leaving without the guardians"): the plan's PSBT for
// the owner's wallet, and back from it the owner's signature over the exit leaf, which finishes the
// exit (btc-signer finalizes no timelocked leaf, so the witness is written here). This browser's
// devnet wallet signs directly with its vault key.
import { base64 } from '@scure/base';
import { Transaction } from '@scure/btc-signer';
import { equalBytes } from '@scure/btc-signer/utils.js';
import { finishExit, signExit, type ExitPlan } from '@unit/bitcoin';
import { deriveDevnetKeys, readDevnetSecret } from '../wallet/devnet-key';

/** The unsigned exit as a base64 PSBT, for a wallet that signs Taproot script paths. */
export const exitPsbtBase64 = (plan: ExitPlan): string => base64.encode(plan.tx.toPSBT());

/**
 * The finished exit from the PSBT the wallet gave back: its one input must carry the owner's
 * signature over the exit leaf, and its outputs and lock must be the plan's (a wallet may not
 * change what the owner saw).
 */
export function finishFromSignedPsbt(plan: ExitPlan, signedBase64: string): Transaction {
  let signed: Transaction;
  try {
    signed = Transaction.fromPSBT(base64.decode(signedBase64.trim()), { allowUnknownInputs: true });
  } catch {
    throw new Error('That is not a PSBT: paste the signed PSBT your wallet gave back, in base64.');
  }
  if (signed.id !== plan.tx.id)
    throw new Error(
      'The wallet changed the exit transaction: sign the PSBT shown here, unchanged.',
    );
  const sigs = signed.getInput(0).tapScriptSig ?? [];
  const ours = sigs.find(([{ pubKey }]) =>
    equalBytes(pubKey, plan.proof.script.slice(plan.proof.script.length - 33, -1)),
  );
  const signature = ours?.[1];
  if (!signature || signature.length !== 64)
    throw new Error(
      'The PSBT holds no signature of the vault key over the exit: sign it with the wallet that holds the vault.',
    );
  return finishExit(plan, signature);
}

/** This browser's devnet vault key, when it has one. */
export function devnetVaultKey(storage: Storage = window.localStorage): Uint8Array | null {
  const secret = readDevnetSecret(storage);
  return secret ? deriveDevnetKeys(secret).vaultKey : null;
}

/** Signs with this browser's devnet vault key. */
export const signWithDevnetKey = (plan: ExitPlan, key: Uint8Array): Transaction =>
  signExit(plan, key);

// Transaction weight of the vault transactions, counted per input and output kind, so that a PSBT
// can be priced before anyone signs it. Signatures are counted at their largest size (72-byte
// DER ECDSA, 64-byte Schnorr with SIGHASH_DEFAULT), so the fee paid is never below
// fee rate x final vsize.
import { classifyScript } from '../core';

/**
 * The payment script kinds a wallet may pay from (SPEC §8: p2sh, p2w-pkh or p2tr). Wallets only hand
 * out P2SH addresses that wrap P2WPKH (Xverse's payment address), so `p2sh` is priced as such.
 */
export type PaymentScriptKind = 'p2wpkh' | 'p2sh' | 'p2tr';

/** Every way an input of a vault transaction is spent. */
export type InputKind = PaymentScriptKind | 'vault-update' | 'vault-liquidation';

/** Which payment kind a UTXO script is; `null` for anything a wallet cannot pay from here. */
export function paymentScriptKind(script: Uint8Array): PaymentScriptKind | null {
  const kind = classifyScript(script);
  return kind === 'p2wpkh' || kind === 'p2sh' || kind === 'p2tr' ? kind : null;
}

// Outpoint (36) + scriptSig length (1) + sequence (4), times the witness scale factor.
const INPUT_BASE_WEIGHT = 41 * 4;
// Witness item count, then each item with its length byte.
const ECDSA_WITNESS = 1 + (1 + 72) + (1 + 33);
const SCHNORR_SIG_ITEM = 1 + 64;
// Control block of a two-leaf tree: 33 bytes + one 32-byte sibling hash.
const CONTROL_BLOCK_ITEM = 1 + 65;
const UPDATE_LEAF_ITEM = 1 + 68;
const LIQUIDATION_LEAF_ITEM = 1 + 57;
const SECRET_ITEM = 1 + 32;

const INPUT_WEIGHT: Record<InputKind, number> = {
  p2wpkh: INPUT_BASE_WEIGHT + ECDSA_WITNESS,
  // The scriptSig pushes the 22-byte redeem script.
  p2sh: INPUT_BASE_WEIGHT + 23 * 4 + ECDSA_WITNESS,
  p2tr: INPUT_BASE_WEIGHT + 1 + SCHNORR_SIG_ITEM,
  'vault-update':
    INPUT_BASE_WEIGHT + 1 + 2 * SCHNORR_SIG_ITEM + UPDATE_LEAF_ITEM + CONTROL_BLOCK_ITEM,
  'vault-liquidation':
    INPUT_BASE_WEIGHT +
    1 +
    SCHNORR_SIG_ITEM +
    SECRET_ITEM +
    LIQUIDATION_LEAF_ITEM +
    CONTROL_BLOCK_ITEM,
};

/** Output script length of each payment kind, for sizing a change output before it exists. */
const PAYMENT_SCRIPT_LENGTH: Record<PaymentScriptKind, number> = {
  p2wpkh: 22,
  p2sh: 23,
  p2tr: 34,
};

// Version and lock time (8 bytes), one-byte input and output counts, segwit marker and flag.
const TX_OVERHEAD_WEIGHT = (4 + 4 + 1 + 1) * 4 + 2;

export function inputWeight(kind: InputKind): number {
  return INPUT_WEIGHT[kind];
}

function compactSizeLength(n: number): number {
  return n < 0xfd ? 1 : n <= 0xffff ? 3 : 5;
}

export function outputWeight(scriptLength: number): number {
  return (8 + compactSizeLength(scriptLength) + scriptLength) * 4;
}

export function changeOutputWeight(kind: PaymentScriptKind): number {
  return outputWeight(PAYMENT_SCRIPT_LENGTH[kind]);
}

/** Weight of a transaction with these inputs and output scripts. */
export function transactionWeight(
  inputs: readonly InputKind[],
  outputScripts: readonly Uint8Array[],
): number {
  return (
    TX_OVERHEAD_WEIGHT +
    inputs.reduce((sum, kind) => sum + inputWeight(kind), 0) +
    outputScripts.reduce((sum, script) => sum + outputWeight(script.length), 0)
  );
}

export function weightToVsize(weight: number): number {
  return Math.ceil(weight / 4);
}

/** Fee in sats for `vsize` at `feeRate` sat/vB, rounded up so the rate is always met. */
export function feeFor(vsize: number, feeRate: number): bigint {
  if (!Number.isFinite(feeRate) || feeRate <= 0) throw new Error('fee rate must be positive');
  return BigInt(Math.ceil(vsize * feeRate));
}

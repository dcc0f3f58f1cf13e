// Choosing the wallet's payment UTXOs for a vault transaction, with the dust-change rule of SPEC §9.
import { DUST_CHANGE_RETRIES, DUST_LIMIT_SATS } from '@unit/protocol';
import { UNEXPECTED_SCRIPT_TYPE } from '../core';
import {
  changeOutputWeight,
  feeFor,
  inputWeight,
  paymentScriptKind,
  weightToVsize,
  type PaymentScriptKind,
} from './vsize';

/** A UTXO of the wallet's sats address, carrying no runes. */
export interface PaymentUtxo {
  txid: string;
  vout: number;
  value: bigint;
  /** The output script it is locked to (P2WPKH, P2SH-P2WPKH or P2TR). */
  script: Uint8Array;
}

export interface SelectCoinsParams {
  utxos: readonly PaymentUtxo[];
  /**
   * Sats the payment inputs must bring in on top of the transaction's other inputs, before fee:
   * outputs minus non-payment inputs. Zero or negative when those inputs already pay for it.
   */
  target: bigint;
  /** sat/vB */
  feeRate: number;
  /** Weight of the transaction without any payment input and without the change output. */
  baseWeight: number;
  changeScriptType: PaymentScriptKind;
  dustLimit?: bigint;
  /** SPEC §9: up to 5 retries when change would be dust. */
  maxRetries?: number;
}

export interface CoinSelection {
  ok: true;
  inputs: PaymentUtxo[];
  /** BTC change to the sats address; 0n when the change output is left out. */
  change: bigint;
  fee: bigint;
  vsize: number;
  weight: number;
  /** How many dust retries it took (0 when the first choice had no dust problem). */
  retries: number;
}

export type CoinSelectionError =
  | { ok: false; error: 'insufficient_funds'; needed: bigint; available: bigint }
  | { ok: false; error: 'unexpected_script_type'; message: string; utxo: string };

export type CoinSelectionResult = CoinSelection | CoinSelectionError;

interface Evaluated {
  inputs: PaymentUtxo[];
  sum: bigint;
  weightNoChange: number;
  feeNoChange: bigint;
  feeWithChange: bigint;
  usedAll: boolean;
}

/**
 * Picks payment UTXOs, largest first, until they cover `target` plus the fee of the transaction
 * with a change output.
 *
 * Dust rule (SPEC §9): when the change would be positive but below the dust limit, the selection is
 * retried, at most `maxRetries` (5) times. A retry raises the amount the selection must cover by one
 * more dust limit, so the next pass takes further UTXOs and the change grows past the dust limit. When
 * no retry gives non-dust change (the retries ran out, or every UTXO is already taken), the change
 * output is dropped on the first selection that covers target and fee without it: the sub-dust
 * remainder goes to the miners, and no needless input is spent.
 */
/** True when spending the output at `feeRate` adds more than its own input fee. */
export function isEconomic(utxo: PaymentUtxo, kind: PaymentScriptKind, feeRate: number): boolean {
  return utxo.value > feeFor(weightToVsize(inputWeight(kind)), feeRate);
}

export function selectCoins(params: SelectCoinsParams): CoinSelectionResult {
  const dustLimit = params.dustLimit ?? BigInt(DUST_LIMIT_SATS);
  const maxRetries = params.maxRetries ?? DUST_CHANGE_RETRIES;
  const kinds = new Map<PaymentUtxo, PaymentScriptKind>();
  for (const utxo of params.utxos) {
    const kind = paymentScriptKind(utxo.script);
    if (!kind) {
      return {
        ok: false,
        error: 'unexpected_script_type',
        message: UNEXPECTED_SCRIPT_TYPE, // SPEC §8
        utxo: `${utxo.txid}:${utxo.vout}`,
      };
    }
    kinds.set(utxo, kind);
  }
  // An output worth no more than the fee of spending it only lowers what the wallet can pay
  // (the max deposit leaves such crumbs out too). Largest first keeps the input count (and fee)
  // low; ties broken by outpoint for determinism.
  const sorted = params.utxos
    .filter((utxo) => isEconomic(utxo, kinds.get(utxo)!, params.feeRate))
    .sort((a, b) =>
      a.value !== b.value
        ? a.value > b.value
          ? -1
          : 1
        : a.txid !== b.txid
          ? a.txid < b.txid
            ? -1
            : 1
          : a.vout - b.vout,
    );
  const changeWeight = changeOutputWeight(params.changeScriptType);

  const evaluate = (mustCover: bigint): Evaluated => {
    const inputs: PaymentUtxo[] = [];
    let sum = 0n;
    let weight = params.baseWeight;
    const feeWithChange = () => feeFor(weightToVsize(weight + changeWeight), params.feeRate);
    for (const utxo of sorted) {
      if (sum >= mustCover + feeWithChange()) break;
      inputs.push(utxo);
      sum += utxo.value;
      weight += inputWeight(kinds.get(utxo)!);
    }
    return {
      inputs,
      sum,
      weightNoChange: weight,
      feeNoChange: feeFor(weightToVsize(weight), params.feeRate),
      feeWithChange: feeWithChange(),
      usedAll: inputs.length === sorted.length,
    };
  };

  let firstWithoutChange: Evaluated | null = null;
  let retries = 0;
  for (let retry = 0; retry <= maxRetries; retry++) {
    retries = retry;
    const pick = evaluate(params.target + BigInt(retry) * dustLimit);
    const change = pick.sum - params.target - pick.feeWithChange;
    if (change >= dustLimit) {
      const weight = pick.weightNoChange + changeWeight;
      return {
        ok: true,
        inputs: pick.inputs,
        change,
        fee: pick.feeWithChange,
        vsize: weightToVsize(weight),
        weight,
        retries: retry,
      };
    }
    const coversWithoutChange = pick.sum - params.target - pick.feeNoChange >= 0n;
    if (coversWithoutChange && !firstWithoutChange) firstWithoutChange = pick;
    // More dust limit cannot help once every UTXO is in.
    if (pick.usedAll) break;
  }
  if (firstWithoutChange) {
    const pick = firstWithoutChange;
    return {
      ok: true,
      inputs: pick.inputs,
      change: 0n,
      fee: pick.sum - params.target,
      vsize: weightToVsize(pick.weightNoChange),
      weight: pick.weightNoChange,
      retries,
    };
  }
  const all = evaluate(BigInt(Number.MAX_SAFE_INTEGER) * 1_000n);
  return {
    ok: false,
    error: 'insufficient_funds',
    needed: params.target + all.feeNoChange,
    available: all.sum,
  };
}

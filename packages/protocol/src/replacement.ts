// Speed-up by replacement (BIP-125, "Opt-in Full Replace-by-Fee Signaling"): which transactions
// may be replaced, how much a replacement must pay, and the fee rate the speed-up drawer offers.
// The devnet's mempool, the guardian and the web app all decide with these functions.
import type { RecommendedFeesDto } from './api';

/** BIP-125 rule 1: an input with nSequence below 0xfffffffe signals that its transaction may be replaced. */
export const MAX_BIP125_RBF_SEQUENCE = 0xfffffffd;
/** The nSequence every input of a vault transaction carries, so each can be sped up. */
export const REPLACEABLE_SEQUENCE = MAX_BIP125_RBF_SEQUENCE;
/** Bitcoin Core's -incrementalrelayfee default, sat/vB: what rule 4 charges per vbyte of the replacement. */
export const INCREMENTAL_RELAY_FEE_RATE = 1;
/** BIP-125 rule 5: at most this many transactions are evicted by one replacement. */
export const MAX_REPLACEMENT_EVICTIONS = 100;

export const signalsReplaceability = (sequences: readonly number[]): boolean =>
  sequences.some((sequence) => sequence <= MAX_BIP125_RBF_SEQUENCE);

export interface FeeAndSize {
  /** sats */
  fee: bigint;
  vsize: number;
}

export type ReplacementRefusal =
  /** The replacement's fee rate is not above a directly replaced transaction's. */
  | { rule: 'feerate'; conflict: number }
  /** Rule 3: less absolute fee than everything it evicts. */
  | { rule: 'fee'; needed: bigint }
  /** Rule 4: the extra fee does not pay the incremental relay fee for its own size. */
  | { rule: 'relay'; needed: bigint };

/**
 * Why a replacement pays too little, or null when it pays enough. `conflicts` are the transactions
 * it spends an input of directly; `evicted` is those plus all their descendants (BIP-125 rules 3, 4,
 * and Core's rule that the new fee rate beats every directly replaced one).
 */
export function replacementRefusal(
  replacement: FeeAndSize,
  conflicts: readonly FeeAndSize[],
  evicted: readonly FeeAndSize[],
  incrementalRate: number = INCREMENTAL_RELAY_FEE_RATE,
): ReplacementRefusal | null {
  for (let i = 0; i < conflicts.length; i++) {
    const old = conflicts[i]!;
    // fee / vsize > old.fee / old.vsize, cross-multiplied to stay in integers.
    if (replacement.fee * BigInt(old.vsize) <= old.fee * BigInt(replacement.vsize))
      return { rule: 'feerate', conflict: i };
  }
  const evictedFees = evicted.reduce((sum, tx) => sum + tx.fee, 0n);
  if (replacement.fee < evictedFees) return { rule: 'fee', needed: evictedFees };
  const relay = BigInt(Math.ceil(incrementalRate * replacement.vsize));
  if (replacement.fee - evictedFees < relay) return { rule: 'relay', needed: evictedFees + relay };
  return null;
}

/** The least fee a replacement of `replacementVsize` vbytes pays to replace `original` (and its descendants). */
export function minimumReplacementFee(
  original: FeeAndSize,
  replacementVsize: number,
  descendantFees = 0n,
  incrementalRate: number = INCREMENTAL_RELAY_FEE_RATE,
): bigint {
  const byRules34 =
    original.fee + descendantFees + BigInt(Math.ceil(incrementalRate * replacementVsize));
  // Strictly above the original's fee rate: floor(fee * newSize / oldSize) + 1.
  const byRate = (original.fee * BigInt(replacementVsize)) / BigInt(original.vsize) + 1n;
  return byRules34 > byRate ? byRules34 : byRate;
}

/** A fee rate in sat/vB as the drawer shows it: whole when whole, else one decimal, rounded up. */
export const feeRateOf = (tx: FeeAndSize): number =>
  Math.ceil((Number(tx.fee) / tx.vsize) * 10) / 10;

/**
 * The whole sat/vB rate the speed-up drawer offers: the mempool's fastest tier, raised to the least
 * rate whose fee at `replacementVsize` meets minimumReplacementFee.
 */
export function speedUpFeeRate(
  original: FeeAndSize,
  replacementVsize: number,
  tiers: Pick<RecommendedFeesDto, 'fastestFee'> | null | undefined,
): number {
  const minimum = minimumReplacementFee(original, replacementVsize);
  const floor = Number((minimum + BigInt(replacementVsize) - 1n) / BigInt(replacementVsize));
  const fastest =
    tiers && Number.isFinite(tiers.fastestFee) && tiers.fastestFee > 0
      ? Math.ceil(tiers.fastestFee)
      : 0;
  return Math.max(floor, fastest);
}

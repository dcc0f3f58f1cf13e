// Absolute (nLockTime, BIP-113) and relative (BIP-68) lock times of a transaction entering the
// mempool, as Bitcoin Core checks them at the tip (CheckFinalTxAtTip, CheckSequenceLocksAtTip):
// the transaction must be valid in the next block, at height tip + 1 with the tip's median time past.
import type { Transaction } from '@scure/btc-signer';
import { REJECT, refuse } from './policy';

/** Below this nLockTime is a block height, from it a Unix time (Core's LOCKTIME_THRESHOLD). */
export const LOCKTIME_THRESHOLD = 500_000_000;
export const SEQUENCE_FINAL = 0xffffffff;
/** BIP-68: set, the input has no relative lock. */
const SEQUENCE_LOCKTIME_DISABLE_FLAG = 0x80000000;
/** BIP-68: set, the relative lock counts 512-second units of median time past, not blocks. */
const SEQUENCE_LOCKTIME_TYPE_FLAG = 0x00400000;
const SEQUENCE_LOCKTIME_MASK = 0x0000ffff;
const SEQUENCE_LOCKTIME_GRANULARITY = 9;
/** How many blocks the median time past looks back over (BIP-113). */
export const MEDIAN_TIME_SPAN = 11;

/** The median of up to the last 11 block times, as Core's GetMedianTimePast picks it. */
export function medianTimePast(times: readonly number[]): number {
  if (times.length === 0) throw new Error('median time past of no blocks');
  const sorted = [...times].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

const sequenceOf = (tx: Transaction, i: number): number =>
  tx.getInput(i).sequence ?? SEQUENCE_FINAL;

/**
 * Core's IsFinalTx: nLockTime 0, or below the block's height (a height lock) or time (a time lock,
 * the median time past since BIP-113), or every input's nSequence final.
 */
export function isFinalTx(tx: Transaction, blockHeight: number, blockTime: number): boolean {
  const lockTime = tx.lockTime;
  if (lockTime === 0) return true;
  if (lockTime < (lockTime < LOCKTIME_THRESHOLD ? blockHeight : blockTime)) return true;
  for (let i = 0; i < tx.inputsLength; i++) if (sequenceOf(tx, i) !== SEQUENCE_FINAL) return false;
  return true;
}

export interface SequenceLockContext {
  /** Height of the block that would hold the transaction (tip + 1). */
  height: number;
  /** Median time past of the tip. */
  medianTimePast: number;
  /** Height of the block holding each input's coin; tip + 1 for a coin still in the mempool. */
  coinHeights: readonly number[];
  /** Median time past of the block at a height (for time-based locks). */
  medianTimePastAt(height: number): Promise<number>;
}

/**
 * BIP-68 (Core's CalculateSequenceLocks and EvaluateSequenceLocks): for a version 2 or later
 * transaction, each input without the disable flag waits its nSequence's count of blocks, or of
 * 512-second units of median time past, after the block that created its coin.
 */
export async function sequenceLocksMet(
  tx: Transaction,
  ctx: SequenceLockContext,
): Promise<boolean> {
  if (tx.version >>> 0 < 2) return true;
  let minHeight = -1;
  let minTime = -1;
  for (let i = 0; i < tx.inputsLength; i++) {
    const sequence = sequenceOf(tx, i);
    if ((sequence & SEQUENCE_LOCKTIME_DISABLE_FLAG) !== 0) continue;
    const coinHeight = ctx.coinHeights[i]!;
    const value = sequence & SEQUENCE_LOCKTIME_MASK;
    if ((sequence & SEQUENCE_LOCKTIME_TYPE_FLAG) !== 0) {
      const coinTime = await ctx.medianTimePastAt(Math.max(coinHeight - 1, 0));
      minTime = Math.max(minTime, coinTime + value * 2 ** SEQUENCE_LOCKTIME_GRANULARITY - 1);
    } else {
      minHeight = Math.max(minHeight, coinHeight + value - 1);
    }
  }
  return minHeight < ctx.height && minTime < ctx.medianTimePast;
}

/** Refuses a transaction whose nLockTime has not passed at the next block (Core: `non-final`). */
export function checkFinal(tx: Transaction, height: number, medianTimePast: number): void {
  if (!isFinalTx(tx, height, medianTimePast)) refuse(REJECT.nonFinal);
}

/** Refuses a transaction whose relative locks hold it past the next block (`non-BIP68-final`). */
export async function checkSequenceLocks(tx: Transaction, ctx: SequenceLockContext): Promise<void> {
  if (!(await sequenceLocksMet(tx, ctx))) refuse(REJECT.nonBip68Final);
}

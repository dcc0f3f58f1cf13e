// Fee estimates from what waits in the devnet mempool, in the shape of mempool.space's
// /api/v1/fees/recommended (SPEC §7). Blocks take the whole mempool, so the estimate only says
// where a new transaction would rank: Fast outbids three quarters of the waiting vbytes, Medium
// half, Slow a quarter; economy is the cheapest rate waiting; minimum the relay floor.
// Slow, Medium and Fast are kept apart (at least 1, 2 and 3 sat/vB, each above the one before): an
// idle devnet mempool would otherwise offer three identical options and the fee choice of the
// drawers (SPEC §9) could not be seen or tried on the devnet.
import type { RecommendedFeesDto } from '@unit/protocol';
import { MIN_RELAY_FEE_RATE } from './policy';

const MIN = Number(MIN_RELAY_FEE_RATE);
/** Floors of Slow, Medium and Fast above the relay floor, so the three tiers are always distinct. */
export const DEVNET_TIER_FLOORS = { hourFee: MIN, halfHourFee: MIN + 1, fastestFee: MIN + 2 };

export interface WaitingTx {
  fee: number;
  vsize: number;
}

/** The fee rate (sat/vB, rounded up) under which `share` of the waiting vbytes sit. */
function rateAtShare(
  sorted: readonly { rate: number; vsize: number }[],
  totalVsize: number,
  share: number,
): number {
  let cumulative = 0;
  for (const tx of sorted) {
    cumulative += tx.vsize;
    if (cumulative >= totalVsize * share) return tx.rate;
  }
  return sorted[sorted.length - 1]?.rate ?? MIN;
}

export function recommendedFees(waiting: readonly WaitingTx[]): RecommendedFeesDto {
  const sorted = waiting
    .filter((tx) => tx.vsize > 0)
    .map((tx) => ({ rate: Math.ceil(tx.fee / tx.vsize), vsize: tx.vsize }))
    .sort((a, b) => a.rate - b.rate);
  const total = sorted.reduce((sum, tx) => sum + tx.vsize, 0);
  const minimumFee = MIN;
  const economyFee = Math.max(minimumFee, sorted[0]?.rate ?? MIN);
  const hourFee = Math.max(
    DEVNET_TIER_FLOORS.hourFee,
    economyFee,
    rateAtShare(sorted, total, 0.25),
  );
  const halfHourFee = Math.max(
    DEVNET_TIER_FLOORS.halfHourFee,
    hourFee + 1,
    rateAtShare(sorted, total, 0.5),
  );
  const fastestFee = Math.max(
    DEVNET_TIER_FLOORS.fastestFee,
    halfHourFee + 1,
    rateAtShare(sorted, total, 0.75),
  );
  return { fastestFee, halfHourFee, hourFee, economyFee, minimumFee };
}

/** Width of a fee histogram bin, vbytes (electrs' VSIZE_BIN_WIDTH). */
const HISTOGRAM_BIN_VSIZE = 50_000;

/**
 * Esplora's GET /mempool `fee_histogram` (the Electrum protocol's mempool.get_fee_histogram):
 * [feerate, vsize] pairs from the highest rate down, each bin closing once it holds more than
 * 50,000 vB and the rate changes; the rate is fee over weight / 4, unrounded.
 */
export function feeHistogram(
  waiting: readonly { fee: number; weight: number }[],
): [number, number][] {
  const entries = waiting
    .map((tx) => ({ rate: tx.fee / (tx.weight / 4), vsize: Math.ceil(tx.weight / 4) }))
    .sort((a, b) => b.rate - a.rate);
  const histogram: [number, number][] = [];
  let bin = 0;
  let lastRate = 0;
  for (const { rate, vsize } of entries) {
    if (bin > HISTOGRAM_BIN_VSIZE && lastRate !== rate) {
      histogram.push([lastRate, bin]);
      bin = 0;
    }
    lastRate = rate;
    bin += vsize;
  }
  if (bin > 0) histogram.push([lastRate, bin]);
  return histogram;
}

/** Esplora's confirmation targets of GET /fee-estimates (electrs: 1 to 25, 144, 504, 1008). */
const ESTIMATE_TARGETS = [...Array.from({ length: 25 }, (_, i) => i + 1), 144, 504, 1008];

/**
 * GET /fee-estimates: sat/vB by confirmation target, from the same tiers as the recommended fees
 * (the next block at Fast, three at Medium, up to a day at Slow, beyond at Economy).
 */
export function feeEstimates(fees: RecommendedFeesDto): Record<string, number> {
  const estimates: Record<string, number> = {};
  for (const target of ESTIMATE_TARGETS)
    estimates[String(target)] =
      target <= 1
        ? fees.fastestFee
        : target <= 3
          ? fees.halfHourFee
          : target <= 144
            ? fees.hourFee
            : fees.economyFee;
  return estimates;
}

// The app's recorded price series in network mode (GUARDIAN_NETWORK local or external):
// the guardians' price quorum (quorum.ts), recorded by the instance leading the price tick.
// Each quorum round adds a point at the quorum's median and stamp when the price moved, when the
// series was stale, or every RECORD_UNCHANGED_EVERY_SECONDS, so the chart, /api/bitcoin-price, the
// price events, Telegram's alerts and the liquidation sweep all read the quorum. No quorum: nothing
// is recorded and the price is stale, as a stale own price is in off mode (no sweep). The app's
// own price source then only drives the devnet's market (devnet/market.ts), which the devnet's
// guardians read.
import { GUARDIAN_PRICE_MAX_AGE_SECONDS } from '@unit/protocol';
import type { PricePoint } from '../store/prices';
import type { DevnetMarket } from '../devnet/market';
import type { PriceQuorumFeed } from './quorum';
import { isLivePriceSource, type LivePriceSource, type PriceSource } from './price-source';

/**
 * An unchanged quorum is recorded this often, so the series' last point stays younger than the
 * 60 s a guardian price stays fresh (GUARDIAN_PRICE_MAX_AGE_SECONDS) and an instance that only
 * hears the leader's points (the bus) sees a fresh price. A point is stamped with the quorum's
 * oldest price, which may already be a guardian tick old (30 s by default), and the next one comes
 * once the quorum's stamp has moved this far, at a quorum round (5 s): with three guardians at any
 * offsets, at most 47 s old before the next round (network-series.test.ts). At 30 s it reached
 * 62 s, and the price read stale for a moment while unchanged.
 */
export const RECORD_UNCHANGED_EVERY_SECONDS = 15;

/**
 * The point a quorum round adds to the series, or null when the series already says it. The
 * stamp is the quorum's (its oldest price's), moved one second past the last point if that is
 * later (a first start's anchor is stamped with the clock): the series never goes back.
 */
export function quorumPoint(
  last: PricePoint | null,
  quorum: { priceCents: number; time: number },
  wasStale: boolean,
): PricePoint | null {
  const { priceCents, time } = quorum;
  if (!last || wasStale)
    return { priceCents, timestamp: Math.max(time, (last?.timestamp ?? 0) + 1) };
  if (last.priceCents === priceCents && time - last.timestamp < RECORD_UNCHANGED_EVERY_SECONDS)
    return null;
  return { priceCents, timestamp: Math.max(time, last.timestamp + 1) };
}

/** Why a quorum series' last point may not be relied on (older than a guardian price may be). */
export function quorumSeriesStale(last: PricePoint | null, now: number): string | null {
  if (!last) return 'no price quorum recorded yet';
  const age = now - last.timestamp;
  return age > GUARDIAN_PRICE_MAX_AGE_SECONDS
    ? `the guardians' price quorum is ${age} s old`
    : null;
}

/**
 * A price tick in network mode: the devnet market takes the simulated walk's next step from its
 * last price. A live source is not read: each guardian reads its own exchanges.
 */
export async function tickMarket(
  market: DevnetMarket | null | undefined,
  source: PriceSource | LivePriceSource,
  now: number,
): Promise<void> {
  if (!market || isLivePriceSource(source)) return;
  const last = await market.get();
  if (!last) return;
  const timestamp = Math.max(now, last.timestamp + 1);
  await market.set({ timestamp, priceCents: source.next(last, timestamp) });
}

/** At start: a devnet market never set starts at the series' last price (the start price). */
export async function startMarket(
  market: DevnetMarket | null | undefined,
  last: PricePoint | null,
): Promise<void> {
  if (market && last && !(await market.get())) await market.set(last);
}

/**
 * The devnet's price set by hand in network mode: the market the guardians read moves, and they
 * are asked at once to read it and sign (the signed `price/fresh` message) rather than at their tick;
 * the leading instance records that round before this returns, so the UI follows within one
 * round trip to the guardians.
 */
export async function setMarket(
  market: DevnetMarket,
  quorum: PriceQuorumFeed,
  point: PricePoint,
): Promise<PricePoint> {
  await market.set(point);
  await quorum.refreshFresh();
  return point;
}

// What the dashboard's cards and the drawers tell a borrower at a glance (issue 22): the distance to
// liquidation, whether a result lands in the Risky band, and the UNIT bar's reading.
import { healthBand, liquidationThresholdCents } from './ratio';
import { priceToCents, type PriceInput, type SatsInput, type UnitCentsInput } from './units';
import { sats, unitCents } from './units';

export interface LiquidationDistance {
  /** the price now minus the liquidation price, USD cents (negative at or under it) */
  usdCents: bigint;
  /** that distance as a percent of the price now, one decimal, rounded down: how far it may fall */
  percent: number;
}

/**
 * How far the BTC price may fall before the vault is liquidated, as BOLD and Summer.fi show it:
 * null without debt, collateral or a known price.
 */
export function liquidationDistance(
  btcSats: SatsInput,
  debtCents: UnitCentsInput,
  priceUsd: PriceInput,
): LiquidationDistance | null {
  const price = priceToCents(priceUsd);
  if (price === null || price <= 0n || unitCents(debtCents) <= 0n || sats(btcSats) <= 0n)
    return null;
  const threshold = BigInt(liquidationThresholdCents(btcSats, debtCents));
  const usdCents = price - threshold;
  // per mille, floored toward zero, so the fall shown is never more than the room there is
  const perMille = (usdCents * 1000n) / price;
  return { usdCents, percent: Number(perMille) / 10 };
}

/** True when a vault state's ratio is in SPEC §9's Risky band: warned before it is confirmed. */
export function isRiskyRatio(ratio: number): boolean {
  return healthBand(ratio) === 'risky';
}

export type UnitBarReading =
  | { kind: 'no-debt' }
  | { kind: 'covered'; percent: 100 }
  | { kind: 'short'; percent: number; missingCents: bigint };

/**
 * SPEC §2's progress bar of UNIT in the wallet against the debt: how much of the debt the wallet
 * could repay now. No debt is its own reading (an empty bar, not a full one).
 */
export function unitBarReading(
  walletCents: UnitCentsInput,
  debtCents: UnitCentsInput,
): UnitBarReading {
  const wallet = unitCents(walletCents);
  const debt = unitCents(debtCents);
  if (debt <= 0n) return { kind: 'no-debt' };
  if (wallet >= debt) return { kind: 'covered', percent: 100 };
  return { kind: 'short', percent: Number((wallet * 100n) / debt), missingCents: debt - wallet };
}

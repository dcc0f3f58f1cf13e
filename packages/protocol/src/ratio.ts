// Collateral ratio, health bands and liquidation (SPEC §4, §9). All math in integers: sats, UNIT
// hundredths and the price in cents, so a boundary such as 135% or 160% is decided exactly.
import {
  DEFAULT_COLLATERAL_RATIO,
  HEALTH_BANDS,
  HEALTH_DISPLAY_CAP_PERCENT,
  HEALTH_FACTOR_NOT_APPLICABLE,
  LIQUIDATED_MARKER_TTL_SECONDS,
  LIQUIDATION_THRESHOLD_PERCENT,
} from './constants';
import {
  priceToCents,
  sats,
  unitCents,
  type PriceInput,
  type SatsInput,
  type UnitCentsInput,
} from './units';

// ratio% = (sats / 1e8) * (pc / 100) / (cents / 100) * 100 = sats * pc / (1e6 * cents)
const RATIO_SCALE = 1_000_000n;

/**
 * Collateral ratio in whole percent, rounded half up (SPEC §9). Infinity with no debt; 160 when the
 * price is unknown (null, undefined, NaN or <= 0).
 */
export function collateralRatio(
  btcSats: SatsInput,
  debtCents: UnitCentsInput,
  priceUsd: PriceInput,
): number {
  const debt = unitCents(debtCents);
  if (debt <= 0n) return Infinity;
  const pc = priceToCents(priceUsd);
  if (pc === null) return DEFAULT_COLLATERAL_RATIO;
  const num = sats(btcSats) * pc;
  const den = RATIO_SCALE * debt;
  return Number((2n * num + den) / (2n * den));
}

/**
 * True when sats * price / debt is at least `percent` exactly (no rounding): the test the guardian
 * applies to borrow and withdraw (SPEC §9: withdraw keeps ratio >= 160%).
 */
export function ratioAtLeast(
  btcSats: SatsInput,
  debtCents: UnitCentsInput,
  priceUsd: PriceInput,
  percentValue: number,
): boolean {
  const debt = unitCents(debtCents);
  if (debt <= 0n) return true;
  const pc = priceToCents(priceUsd);
  if (pc === null) return false;
  return sats(btcSats) * pc * 100n >= BigInt(Math.ceil(percentValue * 100)) * RATIO_SCALE * debt;
}

export type HealthBand = 'risky' | 'moderate' | 'healthy';

/** SPEC §9 bands: Risky 135–160, Moderate 161–195, Healthy 196+; null below 135 or not finite. */
export function healthBand(ratio: number): HealthBand | null {
  if (!Number.isFinite(ratio) || ratio < HEALTH_BANDS.risky.min) return null;
  if (ratio <= HEALTH_BANDS.risky.max) return 'risky';
  if (ratio <= HEALTH_BANDS.moderate.max) return 'moderate';
  return 'healthy';
}

export type BandColour = 'red' | 'yellow' | 'green';

export const HEALTH_BAND_LABELS: Record<HealthBand, string> = {
  risky: 'Risky',
  moderate: 'Moderate',
  healthy: 'Healthy',
};

/** Gauge arcs (SPEC §2 Gauge): red, yellow and green. */
export const HEALTH_BAND_COLOURS: Record<HealthBand, BandColour> = {
  risky: 'red',
  moderate: 'yellow',
  healthy: 'green',
};

/** The range subtitle shown on hover of a gauge arc (SPEC §9 ranges). */
export const HEALTH_BAND_RANGES: Record<HealthBand, string> = {
  risky: '135% - 160%',
  moderate: '161% - 195%',
  healthy: '196% - 230%+',
};

/** Where each arc starts and ends on the gauge (moderate runs to 200 on the gauge, SPEC §9). */
export const GAUGE_ARCS: ReadonlyArray<{ band: HealthBand; from: number; to: number }> = [
  { band: 'risky', from: HEALTH_BANDS.risky.min, to: HEALTH_BANDS.risky.max },
  { band: 'moderate', from: HEALTH_BANDS.risky.max, to: HEALTH_BANDS.moderate.gaugeMax },
  { band: 'healthy', from: HEALTH_BANDS.moderate.gaugeMax, to: HEALTH_BANDS.healthy.max },
];

/** Status text and colour of a ratio for tables (SPEC §3 healthStatusBefore/After). */
export function healthStatus(ratio: number): {
  band: HealthBand | null;
  text: string;
  colour: BandColour | 'grey';
} {
  const band = healthBand(ratio);
  if (band === null) {
    // No debt reads N/A; a finite ratio under 135 is liquidatable and reads red.
    if (!Number.isFinite(ratio) || ratio === HEALTH_FACTOR_NOT_APPLICABLE) {
      return { band, text: 'N/A', colour: 'grey' };
    }
    return { band, text: 'Liquidation', colour: 'red' };
  }
  return { band, text: HEALTH_BAND_LABELS[band], colour: HEALTH_BAND_COLOURS[band] };
}

/** SPEC §5: a health factor of 1 (or no debt) is 'N/A'; 500 or more is '500+%'; else '172%'. */
export function formatHealth(ratio: number): string {
  if (!Number.isFinite(ratio) || ratio === HEALTH_FACTOR_NOT_APPLICABLE) return 'N/A';
  if (ratio >= HEALTH_DISPLAY_CAP_PERCENT) return `${HEALTH_DISPLAY_CAP_PERCENT}+%`;
  return `${Math.round(ratio)}%`;
}

/**
 * Liquidation price in USD cents, floored: debt x 1.35 / BTC (CONSTANTS.md). 0 with no debt (never
 * revealed). This is `th_cents` of docs/protocol.md. Throws for debt with no collateral.
 */
export function liquidationThresholdCents(
  btcSats: SatsInput,
  debtCents: UnitCentsInput,
  thresholdPercent: number = LIQUIDATION_THRESHOLD_PERCENT,
): number {
  const debt = unitCents(debtCents);
  if (debt <= 0n) return 0;
  const collateral = sats(btcSats);
  if (collateral <= 0n) throw new RangeError('a vault with debt must hold collateral');
  // price_cents = (debt/100 UNIT * pct/100) / (sats/1e8) * 100 = debt * pct * 1e6 / sats
  return Number((debt * BigInt(thresholdPercent) * 1_000_000n) / collateral);
}

/** Liquidation price in USD, floored to the cent; null with no debt (or no collateral). */
export function liquidationPriceUsd(
  btcSats: SatsInput,
  debtCents: UnitCentsInput,
  thresholdPercent: number = LIQUIDATION_THRESHOLD_PERCENT,
): number | null {
  if (unitCents(debtCents) <= 0n || sats(btcSats) <= 0n) return null;
  return liquidationThresholdCents(btcSats, debtCents, thresholdPercent) / 100;
}

/** A vault at or under the liquidation threshold (SPEC §4: ratio 135 or below). */
export function isLiquidatable(
  ratio: number,
  thresholdPercent: number = LIQUIDATION_THRESHOLD_PERCENT,
): boolean {
  return Number.isFinite(ratio) && ratio <= thresholdPercent;
}

export interface LiquidatedInput {
  inLiquidatedList: boolean;
  ratio: number;
  /** unix seconds the session marker was set, if any */
  markerSetAt: number | null | undefined;
  nowSeconds: number;
}

/** SPEC §4 Liquidated state: in the list, ratio <= 135, or a marker set within the last 21600 s. */
export function isLiquidated({
  inLiquidatedList,
  ratio,
  markerSetAt,
  nowSeconds,
}: LiquidatedInput): boolean {
  if (inLiquidatedList || isLiquidatable(ratio)) return true;
  return markerSetAt != null && nowSeconds - markerSetAt < LIQUIDATED_MARKER_TTL_SECONDS;
}

/** SPEC §4: the marker is set when the ratio is 135 or below and the vault is not yet in the list. */
export function shouldSetLiquidatedMarker({
  inLiquidatedList,
  ratio,
}: {
  inLiquidatedList: boolean;
  ratio: number;
}): boolean {
  return !inLiquidatedList && isLiquidatable(ratio);
}

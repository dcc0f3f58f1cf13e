// Telegram risk alerts (SPEC §7 notifications, §9 bands): which band a followed vault is
// in at a price, and which bands are worth a message. The server sends one message per change of
// this band; a restart compares with the band it stored and sends nothing new.
import { collateralRatio, healthBand, HEALTH_BAND_LABELS, type HealthBand } from './ratio';
import type { PriceInput, SatsInput, UnitCentsInput } from './units';

/** A vault's band for alerts: the health bands, `liquidated`, or `no-debt` (nothing at risk). */
export type AlertBand = HealthBand | 'liquidated' | 'no-debt';

export function alertBand(
  vault: { status: string; btc_locked: SatsInput; unit_borrowed: UnitCentsInput },
  priceUsd: PriceInput,
): AlertBand {
  if (vault.status === 'liquidated') return 'liquidated';
  const ratio = collateralRatio(vault.btc_locked, vault.unit_borrowed, priceUsd);
  if (!Number.isFinite(ratio)) return 'no-debt';
  // Under 135% the sweep liquidates at this very tick; until it has, the vault reads Risky.
  return healthBand(ratio) ?? 'risky';
}

/** Entering Moderate or Risky, or being liquidated, is announced; recovering is not. */
export const isAlertingBand = (band: AlertBand): boolean =>
  band === 'moderate' || band === 'risky' || band === 'liquidated';

export const ALERT_BAND_LABELS: Record<AlertBand, string> = {
  ...HEALTH_BAND_LABELS,
  liquidated: 'Liquidated',
  'no-debt': 'No debt',
};

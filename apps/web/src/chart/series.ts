import type { HistoryPointDto, PricePointDto } from '@unit/protocol';
import { collateralRatio, priceToCents } from '../protocol-gaps';

export interface RatioPoint {
  /** unix seconds */
  t: number;
  ratio: number;
}

/**
 * The vault's collateral ratio at each price point: the vault state is the last history point at
 * or before that time (the current state when there is none). Points before the vault had debt
 * are left out: a ratio without debt means nothing on this chart.
 */
export function ratioSeries(
  prices: PricePointDto[],
  points: HistoryPointDto[] | undefined,
  current: { sats: bigint; debtCents: bigint },
): RatioPoint[] {
  const sorted = [...(points ?? [])].sort((a, b) => a.timestamp - b.timestamp);
  let i = -1;
  const out: RatioPoint[] = [];
  for (const p of [...prices].sort((a, b) => a.timestamp - b.timestamp)) {
    while (i + 1 < sorted.length && sorted[i + 1]!.timestamp <= p.timestamp) i += 1;
    const state =
      i >= 0
        ? sorted[i]!
        : sorted.length
          ? null
          : { btc_locked: current.sats, unit_borrowed: current.debtCents };
    if (!state) continue;
    const debt = BigInt(state.unit_borrowed);
    if (debt <= 0n || !Number.isFinite(p.price) || p.price <= 0) continue;
    out.push({
      t: p.timestamp,
      ratio: collateralRatio(BigInt(state.btc_locked), debt, priceToCents(p.price)),
    });
  }
  return out;
}

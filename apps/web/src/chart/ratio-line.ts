// The vault's collateral ratio line over a period, from the cached answers (price history, the
// vault's points and history, the cards' confirmed state): one hook for the full chart and its
// light sketch, so both draw the same line.
import { useMemo } from 'react';
import {
  chartStates,
  ratioLine,
  toWireNumber,
  type RatioLine,
  type TimePeriod,
} from '@unit/protocol';
import { useCardReadings } from '../api/card-readings';
import { usePosition } from '../api/position';
import { usePriceHistory } from '../api/price-history';
import { useVaultHistory } from '../api/vault-history';
import { useVaultPoints } from '../api/vault-points';
import { useNow } from '../ui/useNow';

export interface RatioLineState {
  /** the line, or null while loading or when the price history failed */
  line: RatioLine | null;
  /** an answer the line needs is still on its way */
  loading: boolean;
}

export function useRatioLine(vaultId: string, period: TimePeriod): RatioLineState {
  const position = usePosition();
  const prices = usePriceHistory(period);
  const points = useVaultPoints(vaultId, period);
  const history = useVaultHistory(vaultId);
  const now = Math.floor(useNow(60_000) / 1000);
  const openedAt = position.vault?.created_at;
  // "Now" is the state the gauge reads: the confirmed one while a transaction waits for its block.
  const { confirmed } = useCardReadings(position);
  const btc = toWireNumber(confirmed.sats);
  const debt = toWireNumber(confirmed.debtCents);
  const priceUsd = position.priceUsd;
  const priceData = prices.data?.data;
  const pointsReady = !points.isPending || points.isError;
  const line = useMemo(() => {
    if (priceData == null || !pointsReady) return null;
    const current = { btc_locked: btc, unit_borrowed: debt, priceUsd };
    return ratioLine({
      // Without the points the vault's current state stands for its whole life.
      states: points.isError
        ? [{ timestamp: openedAt ?? now, ...current }]
        : chartStates(points.data ?? [], history.data ?? []),
      prices: priceData,
      actions: history.data ?? [],
      period,
      now,
      ...(openedAt != null ? { openedAt } : {}),
      current,
    });
  }, [
    priceData,
    pointsReady,
    points.isError,
    points.data,
    history.data,
    period,
    now,
    openedAt,
    btc,
    debt,
    priceUsd,
  ]);
  return { line, loading: prices.isPending || !pointsReady };
}

import { useMemo } from 'react';
import { cardReadings, type CardReadings } from '@unit/protocol';
import type { Position } from './position';
import { useVaultHistory } from './vault-history';

/**
 * The dashboard's two vault states (card-readings.ts): the confirmed one every card, the gauge and
 * the chart's "Now" show, and the pending after-state shown apart. One hook, so they cannot differ.
 */
export function useCardReadings(position: Position): CardReadings {
  const history = useVaultHistory(position.vault?.vault_id ?? null);
  const { sats, debtCents, priceUsd } = position;
  return useMemo(
    () => cardReadings(history.data ?? [], { sats, debtCents }, priceUsd),
    [history.data, sats, debtCents, priceUsd],
  );
}

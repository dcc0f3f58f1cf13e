import { useEffect } from 'react';
import { isLiquidated, shouldSetLiquidatedMarker } from '@unit/protocol';
import { useLiquidations } from '../api/liquidations';
import { useNow } from '../ui/useNow';

const markerKey = (vaultId: string) => `unit.liquidated.${vaultId}`;

/**
 * SPEC §4 Liquidated state: in the liquidated list, ratio at or under 135, or a session marker set
 * in the last 6 hours. The marker is set when the ratio is at or under 135 and the list does not
 * have the vault yet, so the state survives the gap until the guardian's sweep lists it. A vault
 * without debt has an infinite ratio and is never liquidatable.
 */
export function useLiquidatedState(vaultId: string | null, ratio: number): boolean {
  const list = useLiquidations();
  const now = useNow(60_000);
  const inList = vaultId != null && (list.data ?? []).some((v) => v.vault_id === vaultId);
  const setMarker = shouldSetLiquidatedMarker({ inLiquidatedList: inList, ratio });
  useEffect(() => {
    if (vaultId && setMarker && !sessionStorage.getItem(markerKey(vaultId)))
      sessionStorage.setItem(markerKey(vaultId), String(Math.floor(Date.now() / 1000)));
  }, [vaultId, setMarker]);
  if (!vaultId) return false;
  const marker = sessionStorage.getItem(markerKey(vaultId));
  return isLiquidated({
    inLiquidatedList: inList,
    ratio,
    markerSetAt: marker ? Number(marker) : null,
    nowSeconds: Math.floor(now / 1000),
  });
}

import { useEffect } from 'react';
import { useLiquidations } from '../api/liquidations';
import { useNow } from '../ui/useNow';
import { isLiquidated, LIQUIDATION_THRESHOLD_PERCENT } from '../protocol-gaps';

const markerKey = (vaultId: string) => `unit.liquidated.${vaultId}`;

/**
 * SPEC §4 Liquidated state: in the liquidated list, ratio at or under 135, or a session marker set
 * in the last 6 hours. The marker is set when the ratio is at or under 135 and the list does not
 * have the vault yet, so the state survives the gap until the guardian's sweep lists it.
 */
export function useLiquidatedState(
  vaultId: string | null,
  ratio: number,
  hasDebt: boolean,
): boolean {
  const list = useLiquidations();
  const now = useNow(60_000);
  const inList = vaultId != null && (list.data ?? []).some((v) => v.vault_id === vaultId);
  const atThreshold = hasDebt && ratio <= LIQUIDATION_THRESHOLD_PERCENT;
  useEffect(() => {
    if (vaultId && atThreshold && !inList && !sessionStorage.getItem(markerKey(vaultId)))
      sessionStorage.setItem(markerKey(vaultId), String(Math.floor(Date.now() / 1000)));
  }, [vaultId, atThreshold, inList]);
  if (!vaultId) return false;
  const marker = sessionStorage.getItem(markerKey(vaultId));
  return isLiquidated({
    inLiquidatedList: inList,
    ratio,
    hasDebt,
    markerSetAt: marker ? Number(marker) : null,
    nowSeconds: Math.floor(now / 1000),
  });
}

import { useEffect } from 'react';
import {
  isLiquidated,
  liquidationOutcome,
  liquidationStage,
  shouldSetLiquidatedMarker,
  type LiquidationOutcome,
  type LiquidationStage,
  type VaultDto,
  type VaultLiquidationDto,
} from '@unit/protocol';
import { useLiquidations } from '../api/liquidations';
import { useVaultHistory } from '../api/vault-history';
import { useVaultLiquidation as useVaultLiquidationRecord } from '../api/vault-liquidation';
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

export interface VaultLiquidation {
  stage: LiquidationStage | 'none';
  /** the figures from the vault's `l` and `x` (or `e`) records; null before the guardian records an `l` */
  outcome: LiquidationOutcome | null;
  /** the server's record: the exact oracle price and the claimant */
  record: VaultLiquidationDto | null;
}

/**
 * Where the vault stands in its liquidation, from every source the page has: SPEC §4's liquidated
 * state (`liquidated`), the vault's status, the liquidated list and the vault's history.
 */
export function useVaultLiquidation(vault: VaultDto | null, liquidated: boolean): VaultLiquidation {
  const list = useLiquidations();
  const history = useVaultHistory(vault?.vault_id ?? null);
  const listed = vault ? (list.data ?? []).find((v) => v.vault_id === vault.vault_id) : undefined;
  const outcome = history.data ? liquidationOutcome(history.data) : null;
  const stage = liquidationStage({
    liquidated,
    vaultStatus: vault?.status ?? null,
    listedStatus: listed?.status ?? null,
    outcome,
  });
  const record = useVaultLiquidationRecord(stage !== 'none' ? (vault?.vault_id ?? null) : null);
  return {
    // The server's record knows how the liquidation ended before the history may show it.
    stage:
      record.data?.status === 'repossessed' || record.data?.status === 'exited'
        ? record.data.status
        : stage,
    outcome,
    record: record.data ?? null,
  };
}

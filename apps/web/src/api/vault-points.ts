import { queryOptions, useQuery } from '@tanstack/react-query';
import type { HistoryPointDto, TimePeriod } from '@unit/protocol';
import { getJson } from './http';

// SPEC §3 History point: the vault's collateral over time, joined with price history for the chart.
export const getVaultPoints = (vaultId: string, period: TimePeriod) =>
  getJson<HistoryPointDto[]>(
    `/api/vaults/${encodeURIComponent(vaultId)}/points?timePeriod=${encodeURIComponent(period)}`,
  );

export const vaultPointsQueryOptions = (vaultId: string | null, period: TimePeriod) =>
  queryOptions({
    queryKey: ['vault-points', vaultId, period],
    queryFn: () => getVaultPoints(vaultId!, period),
    enabled: vaultId != null,
    staleTime: 60_000,
  });

export const useVaultPoints = (vaultId: string | null, period: TimePeriod) =>
  useQuery(vaultPointsQueryOptions(vaultId, period));

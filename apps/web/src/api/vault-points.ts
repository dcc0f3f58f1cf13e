import { queryOptions, useQuery } from '@tanstack/react-query';
import type { TimePeriod } from '@unit/protocol';
import { callApi } from './call';

// SPEC §3 History point: the vault's collateral over time, joined with price history for the chart.
export const getVaultPoints = (vaultId: string, period: TimePeriod) =>
  callApi('vaultPoints', { params: { vaultId }, query: { timePeriod: period } });

export const vaultPointsQueryOptions = (vaultId: string | null, period: TimePeriod) =>
  queryOptions({
    queryKey: ['vault-points', vaultId, period],
    queryFn: () => getVaultPoints(vaultId!, period),
    enabled: vaultId != null,
    staleTime: 60_000,
  });

export const useVaultPoints = (vaultId: string | null, period: TimePeriod) =>
  useQuery(vaultPointsQueryOptions(vaultId, period));

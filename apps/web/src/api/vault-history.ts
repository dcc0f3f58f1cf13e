import { queryOptions, useQuery } from '@tanstack/react-query';
import type { VaultHistoryRecordDto } from '@unit/protocol';
import { getJson } from './http';

export const getVaultHistory = (vaultId: string) =>
  getJson<VaultHistoryRecordDto[]>(`/api/vaults/${encodeURIComponent(vaultId)}/history`);

export const vaultHistoryQueryOptions = (vaultId: string | null) =>
  queryOptions({
    queryKey: ['vault-history', vaultId],
    queryFn: () => getVaultHistory(vaultId!),
    enabled: vaultId != null,
    staleTime: 10_000,
  });

export const useVaultHistory = (vaultId: string | null) =>
  useQuery(vaultHistoryQueryOptions(vaultId));

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
    // Follow the chain while the page is open: a block confirms pending transactions (SPEC §4)
    // and moves the vault; a devnet block comes every 10 s, a real one every ~10 min.
    refetchInterval: 10_000,
  });

export const useVaultHistory = (vaultId: string | null) =>
  useQuery(vaultHistoryQueryOptions(vaultId));

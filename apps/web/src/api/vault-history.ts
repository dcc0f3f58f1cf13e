import { queryOptions, useQuery } from '@tanstack/react-query';
import type { VaultHistoryRecordDto } from '@unit/protocol';
import { getJson } from './http';

export const getVaultHistory = (vaultId: string) =>
  getJson<VaultHistoryRecordDto[]>(`/api/vaults/${encodeURIComponent(vaultId)}/history`);

export const vaultHistoryQueryOptions = (vaultId: string | null, refetchMs = 10_000) =>
  queryOptions({
    queryKey: ['vault-history', vaultId],
    queryFn: () => getVaultHistory(vaultId!),
    enabled: vaultId != null,
    staleTime: Math.min(10_000, refetchMs),
    // Follow the chain while the page is open: a block confirms pending transactions (SPEC §4)
    // and moves the vault; a devnet block comes every 10 s, a real one every ~10 min.
    refetchInterval: refetchMs,
  });

/** `refetchMs`: how often to look for the next block; the creation screen looks every 3 s. */
export const useVaultHistory = (vaultId: string | null, refetchMs?: number) =>
  useQuery(vaultHistoryQueryOptions(vaultId, refetchMs));

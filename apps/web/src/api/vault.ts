import { queryOptions, useQuery } from '@tanstack/react-query';
import type { VaultDto } from '@unit/protocol';
import { getJson, isNotFound } from './http';
import { pollEvery } from './live';

/** The vault of a wallet key, or null when it has none (404 not_found). */
export const getVaultByPubkey = async (pubkey: string): Promise<VaultDto | null> => {
  try {
    return await getJson<VaultDto>(`/api/vaults/by-pubkey/${encodeURIComponent(pubkey)}`);
  } catch (error) {
    if (isNotFound(error)) return null;
    throw error;
  }
};

export const vaultQueryOptions = (pubkey: string | null) =>
  queryOptions({
    queryKey: ['vault', pubkey],
    queryFn: () => getVaultByPubkey(pubkey!),
    enabled: pubkey != null,
    staleTime: 10_000,
    // Follow the chain while the page is open: a block confirms pending transactions (SPEC §4)
    // and moves the vault; a devnet block comes every 10 s, a real one every ~10 min. While the
    // stream is up, its block and vault events refresh the vault and a poll is only a safety net.
    refetchInterval: pollEvery(10_000, 2 * 60_000),
  });

export const useVault = (pubkey: string | null) => useQuery(vaultQueryOptions(pubkey));

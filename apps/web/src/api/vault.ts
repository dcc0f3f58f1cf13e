import { queryOptions, useQuery } from '@tanstack/react-query';
import type { VaultDto } from '@unit/protocol';
import { callApi } from './call';
import { pollEvery } from './live';

/**
 * The vault of a wallet key, or null when it has none. Asked as a list (GET /api/vaults?pubkey=)
 * so a wallet without a vault is an ordinary empty answer: by-pubkey's 404 showed as a red console
 * error on every poll. Any other failure still throws.
 */
export const getVaultByPubkey = async (pubkey: string): Promise<VaultDto | null> => {
  const vaults = await callApi('vaults', { query: { pubkey } });
  return vaults[0] ?? null;
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

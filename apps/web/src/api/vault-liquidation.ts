import { queryOptions, useQuery } from '@tanstack/react-query';
import type { VaultLiquidationDto } from '@unit/protocol';
import { callApi } from './call';
import { isNotFound } from './http';

/** The vault's liquidation record with its claimant, or null when it was never liquidated (404). */
export async function getVaultLiquidation(vaultId: string): Promise<VaultLiquidationDto | null> {
  try {
    return await callApi('vaultLiquidation', { params: { vaultId } });
  } catch (error) {
    if (isNotFound(error)) return null;
    throw error;
  }
}

/** Asked only for a vault the page knows is liquidated; follows it until it is repossessed. */
export const vaultLiquidationQueryOptions = (vaultId: string | null) =>
  queryOptions({
    queryKey: ['vault-liquidation', vaultId],
    queryFn: () => getVaultLiquidation(vaultId!),
    enabled: vaultId != null,
    staleTime: 10_000,
    refetchInterval: (query) => (query.state.data?.status === 'repossessed' ? false : 10_000),
  });

export const useVaultLiquidation = (vaultId: string | null) =>
  useQuery(vaultLiquidationQueryOptions(vaultId));

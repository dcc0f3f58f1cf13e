import { queryOptions, useQuery } from '@tanstack/react-query';
import type { VaultLiquidationDto } from '@unit/protocol';
import { callApiOrNull } from './call';

/** The vault's liquidation record with its claimant, or null when it was never liquidated (404). */
export const getVaultLiquidation = (vaultId: string): Promise<VaultLiquidationDto | null> =>
  callApiOrNull('vaultLiquidation', { params: { vaultId } });

/**
 * Asked only for a vault the page knows is liquidated; follows it until it is repossessed or its
 * owner took it back by the exit.
 */
export const vaultLiquidationQueryOptions = (vaultId: string | null) =>
  queryOptions({
    queryKey: ['vault-liquidation', vaultId],
    queryFn: () => getVaultLiquidation(vaultId!),
    enabled: vaultId != null,
    staleTime: 10_000,
    refetchInterval: (query) =>
      query.state.data && query.state.data.status !== 'liquidated' ? false : 10_000,
  });

export const useVaultLiquidation = (vaultId: string | null) =>
  useQuery(vaultLiquidationQueryOptions(vaultId));

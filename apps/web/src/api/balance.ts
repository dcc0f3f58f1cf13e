import { queryOptions, useQuery } from '@tanstack/react-query';
import type { AddressStatsDto, ConfigDto } from '@unit/protocol';
import { getJson, joinUrl } from './http';

// SPEC §7: funded - spent of chain_stats is the sats balance; stale 60 s.
export const getSatsBalance = async (config: ConfigDto, address: string): Promise<bigint> => {
  const stats = await getJson<AddressStatsDto>(
    joinUrl(config.esploraUrl, `address/${encodeURIComponent(address)}`),
  );
  return BigInt(stats.chain_stats.funded_txo_sum) - BigInt(stats.chain_stats.spent_txo_sum);
};

export const balanceQueryOptions = (config: ConfigDto, address: string | null) =>
  queryOptions({
    queryKey: ['balance', address],
    queryFn: () => getSatsBalance(config, address!),
    enabled: address != null,
    staleTime: 60_000,
  });

export const useSatsBalance = (config: ConfigDto, address: string | null) =>
  useQuery(balanceQueryOptions(config, address));

import { queryOptions, useQuery } from '@tanstack/react-query';
import type { AddressStatsDto, ConfigDto } from '@unit/protocol';
import { getJson, joinUrl } from './http';

/**
 * Sats on their way to an address: paid to it by transactions still in the mempool (mempool_stats),
 * net of what the mempool spends from it. The balance (SPEC §7) counts only confirmed sats, so a new
 * devnet wallet whose faucet payment waits for a block would read 'Available: 0 BTC'; this is what
 * lets the app say 'Funds arriving' instead.
 */
export const getIncomingSats = async (config: ConfigDto, address: string): Promise<bigint> => {
  const stats = await getJson<AddressStatsDto>(
    joinUrl(config.esploraUrl, `address/${encodeURIComponent(address)}`),
  );
  const net =
    BigInt(stats.mempool_stats.funded_txo_sum) - BigInt(stats.mempool_stats.spent_txo_sum);
  return net > 0n ? net : 0n;
};

// Under the 'balance' key: a new block (api/block-height.ts) refreshes it with the balance.
export const incomingQueryOptions = (config: ConfigDto, address: string | null) =>
  queryOptions({
    queryKey: ['balance', address, 'incoming'],
    queryFn: () => getIncomingSats(config, address!),
    enabled: address != null,
    staleTime: 5_000,
  });

export const useIncomingSats = (config: ConfigDto, address: string | null) =>
  useQuery(incomingQueryOptions(config, address));

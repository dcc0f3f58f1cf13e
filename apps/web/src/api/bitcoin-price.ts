import { queryOptions, useQuery } from '@tanstack/react-query';
import type { BitcoinPriceDto } from '@unit/protocol';
import { getJson } from './http';

// SPEC §7: the price is refetched every 30 s.
export const PRICE_REFETCH_MS = 30_000;

export const getBitcoinPrice = () => getJson<BitcoinPriceDto>('/api/bitcoin-price');

export const bitcoinPriceQueryOptions = queryOptions({
  queryKey: ['bitcoin-price'],
  queryFn: getBitcoinPrice,
  refetchInterval: PRICE_REFETCH_MS,
  staleTime: PRICE_REFETCH_MS,
});

export const useBitcoinPrice = () => useQuery(bitcoinPriceQueryOptions);

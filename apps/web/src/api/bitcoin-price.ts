import { queryOptions, useQuery } from '@tanstack/react-query';
import type { BitcoinPriceDto } from '@unit/protocol';
import { getJson } from './http';
import { pollEvery } from './live';

// SPEC §7: the price is refetched every 30 s.
export const PRICE_REFETCH_MS = 30_000;
/**
 * The oracle ticks every 30 s and the app reads it every 30 s, so a healthy price is up to 60 s
 * old when shown; past that a refetch or a tick was missed (server or feed silent) and the banner
 * says 'Price as of hh:mm'.
 */
export const PRICE_STALE_AFTER_MS = 2 * PRICE_REFETCH_MS;

/** While the stream pushes every tick, a poll is only a safety net. */
export const PRICE_REFETCH_LIVE_MS = 5 * 60_000;

export const getBitcoinPrice = () => getJson<BitcoinPriceDto>('/api/bitcoin-price');

export const bitcoinPriceQueryOptions = queryOptions({
  queryKey: ['bitcoin-price'],
  queryFn: getBitcoinPrice,
  refetchInterval: pollEvery(PRICE_REFETCH_MS, PRICE_REFETCH_LIVE_MS),
  staleTime: PRICE_REFETCH_MS,
});

export const useBitcoinPrice = () => useQuery(bitcoinPriceQueryOptions);

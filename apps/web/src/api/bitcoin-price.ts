import { useMemo } from 'react';
import { queryOptions, useQuery } from '@tanstack/react-query';
import { pricePause, type BitcoinPriceDto, type PricePause } from '@unit/protocol';
import { callApi } from './call';
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

export const getBitcoinPrice = () => callApi('bitcoinPrice', {});

/** A price the server called stale, or older than a healthy one can be (the banner's 'as of'). */
export const isPriceStale = (price: BitcoinPriceDto, nowMs = Date.now()): boolean =>
  price.stale === true || nowMs - price.time * 1000 > PRICE_STALE_AFTER_MS;

const streamedPoll = pollEvery(PRICE_REFETCH_MS, PRICE_REFETCH_LIVE_MS);

export const bitcoinPriceQueryOptions = queryOptions({
  queryKey: ['bitcoin-price'],
  queryFn: getBitcoinPrice,
  // The stream pushes fresh ticks only: while the price shown is stale, the server is asked every
  // 30 s why (and whether it is fresh again), stream or not.
  refetchInterval: (query) => {
    const shown = query.state.data;
    return shown && isPriceStale(shown) ? PRICE_REFETCH_MS : streamedPoll();
  },
  staleTime: PRICE_REFETCH_MS,
});

export const useBitcoinPrice = () => useQuery(bitcoinPriceQueryOptions);

// Intl rather than date-fns: the price banner is in the initial chunk (bundle budget).
const hhmm = new Intl.DateTimeFormat('en-GB', {
  hour: '2-digit',
  minute: '2-digit',
  hourCycle: 'h23',
});

/** A price's time as the banner shows it: '02:52', the reader's own clock. */
export const formatPriceTime = (unixSeconds: number): string =>
  hhmm.format(new Date(unixSeconds * 1000));

/** While the server says the price is stale: why, since when, and what to do (price-pause.ts). */
export function usePricePause(): PricePause | null {
  const { data } = useBitcoinPrice();
  return useMemo(() => (data ? pricePause(data, formatPriceTime(data.time)) : null), [data]);
}

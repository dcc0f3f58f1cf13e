import { queryOptions, useQuery } from '@tanstack/react-query';
import type { PriceHistoryDto, TimePeriod } from '@unit/protocol';
import { callApi } from './call';

export const getPriceHistory = async (period: TimePeriod): Promise<PriceHistoryDto> => {
  const body = await callApi('priceHistory', { query: { timePeriod: period } });
  // SPEC §8: the error field is thrown.
  if (body.error) throw new Error(body.error);
  return body;
};

// SPEC §7: stale 1 hour for 24h, otherwise never; 5 retries at 5 s.
export const priceHistoryQueryOptions = (period: TimePeriod) =>
  queryOptions({
    queryKey: ['price-history', period],
    queryFn: () => getPriceHistory(period),
    staleTime: period === '24h' ? 3_600_000 : Infinity,
    retry: 5,
    retryDelay: 5_000,
  });

/**
 * SPEC §8: on failure the cached 1y data is reused for that interval. When the user never opened
 * YTD there is nothing cached yet: the 1y prices are fetched then, once the interval has failed.
 */
export function usePriceHistory(period: TimePeriod) {
  const query = useQuery(priceHistoryQueryOptions(period));
  const year = useQuery({
    ...priceHistoryQueryOptions('1y'),
    enabled: query.isError && period !== '1y',
  });
  const fallback = query.isError ? year.data : undefined;
  return {
    ...query,
    data: query.data ?? fallback,
    // still loading while the fallback is on its way; failed only when it failed too
    isPending: query.isPending || (query.isError && !fallback && year.fetchStatus === 'fetching'),
    isError: query.isError && !fallback && year.fetchStatus !== 'fetching',
  };
}

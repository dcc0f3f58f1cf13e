import { queryOptions, useQuery } from '@tanstack/react-query';
import { callApi } from './call';

export const getLiquidations = () => callApi('liquidations', {});

export const liquidationsQueryOptions = queryOptions({
  queryKey: ['liquidations'],
  queryFn: getLiquidations,
  staleTime: 30_000,
});

export const useLiquidations = () => useQuery(liquidationsQueryOptions);

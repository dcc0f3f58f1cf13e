import { queryOptions, useQuery } from '@tanstack/react-query';
import type { LiquidatedVaultDto } from '@unit/protocol';
import { getJson } from './http';

export const getLiquidations = () => getJson<LiquidatedVaultDto[]>('/api/liquidations');

export const liquidationsQueryOptions = queryOptions({
  queryKey: ['liquidations'],
  queryFn: getLiquidations,
  staleTime: 30_000,
});

export const useLiquidations = () => useQuery(liquidationsQueryOptions);

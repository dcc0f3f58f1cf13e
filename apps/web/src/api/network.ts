// GET /api/network (issue 20): the guardian set the server coordinates and each guardian's health.
// The server keeps one answer for a few seconds; the page asks again every 10 s.
import { queryOptions, useQuery } from '@tanstack/react-query';
// Types only (erased): the page's first chunk carries no zod.
import type { GuardianNetworkDto } from '@unit/protocol/wire';
import { getJson } from './http';

export const NETWORK_REFRESH_MS = 10_000;

export const getNetwork = () => getJson<GuardianNetworkDto>('/api/network');

export const networkQueryOptions = queryOptions({
  queryKey: ['network'],
  queryFn: getNetwork,
  staleTime: NETWORK_REFRESH_MS / 2,
  refetchInterval: NETWORK_REFRESH_MS,
});

export const useNetwork = () => useQuery(networkQueryOptions);

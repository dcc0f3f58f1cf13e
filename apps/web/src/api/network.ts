// GET /api/network: the guardian set the server coordinates and each guardian's health.
// The server keeps one answer for a few seconds; the page asks again every 10 s.
import { queryOptions, useQuery } from '@tanstack/react-query';
import { callApi } from './call';

export const NETWORK_REFRESH_MS = 10_000;
/** How long the page waits for one answer (the server asks each guardian for 2 s at most). */
export const NETWORK_READ_TIMEOUT_MS = 10_000;

/** Every read has its time-out, and stops when the query is cancelled (the page left). */
function readSignal(cancel?: AbortSignal): AbortSignal {
  const timeout = AbortSignal.timeout(NETWORK_READ_TIMEOUT_MS);
  return cancel && typeof AbortSignal.any === 'function'
    ? AbortSignal.any([cancel, timeout])
    : timeout;
}

export const getNetwork = (cancel?: AbortSignal) =>
  callApi('network', {}, { signal: readSignal(cancel) });

export const networkQueryOptions = queryOptions({
  queryKey: ['network'],
  queryFn: ({ signal }) => getNetwork(signal),
  staleTime: NETWORK_REFRESH_MS / 2,
  refetchInterval: NETWORK_REFRESH_MS,
});

export const useNetwork = () => useQuery(networkQueryOptions);

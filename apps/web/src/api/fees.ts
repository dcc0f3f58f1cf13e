import { queryOptions, useQuery } from '@tanstack/react-query';
import type { ConfigDto, RecommendedFeesDto } from '@unit/protocol';
import { getJson, joinUrl } from './http';

// SPEC §7: {mempool}/{network}/api/v1/fees/recommended, signet for mutinynet.
export const getRecommendedFees = (config: ConfigDto) => {
  const network = config.network === 'mutinynet' ? 'signet' : config.network;
  return getJson<RecommendedFeesDto>(
    joinUrl(config.mempoolUrl, `${network}/api/v1/fees/recommended`),
  );
};

export const feesQueryOptions = (config: ConfigDto) =>
  queryOptions({
    queryKey: ['fee-rates'],
    queryFn: () => getRecommendedFees(config),
    staleTime: 60_000,
  });

export const useRecommendedFees = (config: ConfigDto) => useQuery(feesQueryOptions(config));

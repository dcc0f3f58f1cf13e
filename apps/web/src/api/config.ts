import { createContext, useContext } from 'react';
import { queryOptions, useQuery } from '@tanstack/react-query';
import type { ConfigDto } from '@unit/protocol';
import { callApi } from './call';

// Every URL the app calls comes from here (ARCHITECTURE: same build, any network). Loaded once,
// before anything else renders (src/app/ConfigGate).
export const getConfig = () => callApi('config', {});

export const configQueryOptions = queryOptions({
  queryKey: ['config'],
  queryFn: getConfig,
  staleTime: Infinity,
});

export const useConfigQuery = () => useQuery(configQueryOptions);

export const ConfigContext = createContext<ConfigDto | null>(null);

export function useConfig(): ConfigDto {
  const config = useContext(ConfigContext);
  if (!config) throw new Error('useConfig outside ConfigGate');
  return config;
}

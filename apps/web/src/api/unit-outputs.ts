import { queryOptions, useQuery } from '@tanstack/react-query';
import type { ConfigDto, UnitOutputDto } from '@unit/protocol';
import { getJson, joinUrl } from './http';

export const getUnitOutputs = (config: ConfigDto, address: string) =>
  getJson<UnitOutputDto[]>(
    joinUrl(config.runesUrl, `address/${encodeURIComponent(address)}/outputs`),
  );

/** UNIT in the wallet, hundredths: the unspent rune outputs summed. */
export const unitBalanceCents = (outputs: UnitOutputDto[]): bigint =>
  outputs.filter((o) => !o.spent).reduce((sum, o) => sum + BigInt(o.unit_amount), 0n);

export const unitOutputsQueryOptions = (config: ConfigDto, address: string | null) =>
  queryOptions({
    queryKey: ['unit-outputs', address],
    queryFn: () => getUnitOutputs(config, address!),
    enabled: address != null,
    staleTime: 60_000,
  });

export const useUnitOutputs = (config: ConfigDto, address: string | null) =>
  useQuery(unitOutputsQueryOptions(config, address));

import { useEffect, useRef } from 'react';
import { queryOptions, useQuery, useQueryClient } from '@tanstack/react-query';
import type { ConfigDto } from '@unit/protocol';
import { useConfig } from './config';
import { getJson, joinUrl } from './http';
import { pollEvery } from './live';

/** The devnet mines on demand or every few seconds; public networks every ten minutes or so. */
const refetchMs = (config: ConfigDto) => (config.network === 'devnet' ? 5_000 : 30_000);
/** While the stream announces each block (api/live.ts), a poll is only a safety net. */
const REFETCH_LIVE_MS = 2 * 60_000;

// SPEC §7 names the block height among the queries refreshed after a vault is created.
export const blockHeightQueryOptions = (config: ConfigDto) =>
  queryOptions({
    queryKey: ['block-height'],
    queryFn: () => getJson<number>(joinUrl(config.esploraUrl, 'blocks/tip/height')),
    refetchInterval: pollEvery(refetchMs(config), REFETCH_LIVE_MS),
  });

/** What a block can change: confirmed balances (SPEC §7), the vault, its history and chart. */
const CHANGED_BY_A_BLOCK = [
  'balance',
  'unit-outputs',
  'vault',
  'vault-history',
  'vault-points',
  'fee-rates',
] as const;

/**
 * Watches the chain tip and refreshes what a new block changes, so a faucet payment, a deposit or
 * an opening confirms on screen without waiting out each query's own stale time. Mounted once.
 */
export function useNewBlocks(): void {
  const config = useConfig();
  const client = useQueryClient();
  const { data: height } = useQuery(blockHeightQueryOptions(config));
  const seen = useRef<number | null>(null);
  useEffect(() => {
    if (height == null) return;
    if (seen.current != null && height !== seen.current)
      for (const key of CHANGED_BY_A_BLOCK) void client.invalidateQueries({ queryKey: [key] });
    seen.current = height;
  }, [height, client]);
}

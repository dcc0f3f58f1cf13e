import { useCallback, useMemo, useState } from 'react';
import { queryOptions, useInfiniteQuery, useQuery } from '@tanstack/react-query';
import type { VaultHistoryPageDto, VaultHistoryRecordDto, VaultStateDto } from '@unit/protocol';
import { callApi } from './call';

/** Records per history page: four desktop pages of the table, or four mobile batches. */
export const HISTORY_PAGE_LIMIT = 20;

export const getVaultHistoryPage = (vaultId: string, before: string | null = null) =>
  callApi('vaultHistory', {
    params: { vaultId },
    query: { limit: HISTORY_PAGE_LIMIT, ...(before ? { before } : {}) },
  });

/**
 * The newest page of a vault's history. It alone follows the chain: a block confirms pending
 * transactions (SPEC §4) and adds records at the newest end, so older pages never need refetching.
 */
export const vaultHistoryQueryOptions = (vaultId: string | null, refetchMs = 10_000) =>
  queryOptions({
    queryKey: ['vault-history', vaultId],
    queryFn: () => getVaultHistoryPage(vaultId!),
    enabled: vaultId != null,
    staleTime: Math.min(10_000, refetchMs),
    // A devnet block comes every 10 s, a real one every ~10 min.
    refetchInterval: refetchMs,
  });

/**
 * The newest records (what pending transactions and the creation screen look for).
 * `refetchMs`: how often to look for the next block; the creation screen looks every 3 s.
 */
export const useVaultHistory = (vaultId: string | null, refetchMs?: number) =>
  useQuery({
    ...vaultHistoryQueryOptions(vaultId, refetchMs),
    select: (page) => page.records,
  });

const recordKey = (r: VaultHistoryRecordDto) => `${r.transaction_id}:${r.action}`;

export interface VaultHistoryPages {
  /** every record loaded so far, newest first, each once */
  records: VaultHistoryRecordDto[];
  /** the state before the oldest loaded record (null: it is the vault's first) */
  stateBefore: VaultStateDto | null;
  /** older records exist beyond those loaded */
  hasMore: boolean;
  loadingMore: boolean;
  /** fetches the next older page; a no-op while one is on its way or when none is left */
  loadMore(): void;
  isPending: boolean;
  isError: boolean;
}

/**
 * The history as the transactions table reads it: the newest page (refetched on each block) and
 * older pages fetched on demand. Older pages are keyed apart from the newest
 * ('vault-history-older'), so a block refetches one page, not all. They continue from the newest
 * page as it was when the first of them was asked for (the anchor), which the table keeps: records
 * a block pushes out of the newest page are still there. Only when the newest page no longer meets
 * the anchor (more new records than a page holds) are the older pages dropped and started again.
 */
export function useVaultHistoryPages(vaultId: string | null): VaultHistoryPages {
  const newest = useQuery(vaultHistoryQueryOptions(vaultId));
  const [anchor, setAnchor] = useState<VaultHistoryPageDto | null>(null);
  const page = newest.data;
  const met = useMemo(() => {
    if (!anchor || !page) return false;
    const keys = new Set(page.records.map(recordKey));
    return anchor.records.some((r) => keys.has(recordKey(r)));
  }, [anchor, page]);
  const liveAnchor = met ? anchor : null;
  const older = useInfiniteQuery({
    queryKey: ['vault-history-older', vaultId, liveAnchor?.next ?? null],
    queryFn: ({ pageParam }) => getVaultHistoryPage(vaultId!, pageParam),
    initialPageParam: liveAnchor?.next ?? '',
    getNextPageParam: (last) => last.next,
    enabled: vaultId != null && liveAnchor?.next != null,
    staleTime: Infinity,
  });

  const olderData = liveAnchor ? older.data : undefined;
  const records = useMemo(() => {
    const seen = new Set<string>();
    const all: VaultHistoryRecordDto[] = [];
    const pages = [page, liveAnchor, ...(olderData?.pages ?? [])];
    for (const r of pages.flatMap((p) => p?.records ?? [])) {
      const key = recordKey(r);
      if (seen.has(key)) continue;
      seen.add(key);
      all.push(r);
    }
    return all;
  }, [page, liveAnchor, olderData]);
  const oldest = olderData?.pages.at(-1) ?? liveAnchor ?? page;
  const hasMore = oldest?.next != null;
  const loadingMore = older.isFetching;

  const { fetchNextPage } = older;
  const loadMore = useCallback(() => {
    if (!page || loadingMore || !hasMore) return;
    if (!liveAnchor) setAnchor(page);
    else if (olderData) void fetchNextPage();
  }, [page, liveAnchor, olderData, loadingMore, hasMore, fetchNextPage]);

  return {
    records,
    stateBefore: oldest?.state_before ?? null,
    hasMore,
    loadingMore,
    loadMore,
    isPending: newest.isPending,
    isError: newest.isError,
  };
}

// Live state: one EventSource on GET /api/events per page. The server pushes each price tick, each
// new block and each vault change; the app writes them into the query cache, so the header price,
// the gauge, the liquidation price, the badge and the modal all re-render from one price at once.
// While the stream is up the queries poll rarely; while it is down they poll as they always did.
import type { QueryClient } from '@tanstack/react-query';
import {
  LIVE_EVENT_TYPES,
  parseLiveEvent,
  type BitcoinPriceDto,
  type LiquidatedVaultDto,
  type LiveEvent,
  type VaultDto,
} from '@unit/protocol';
import { ROUTE_PATHS } from '@unit/protocol/wire/paths';

export const LIVE_EVENTS_URL = ROUTE_PATHS.events.path;

/** After the server refused the stream (over its limit, an older server), when to ask again. */
const REOPEN_AFTER_REFUSAL_MS = 60_000;

type LiveStatus = 'off' | 'connecting' | 'up';

let status: LiveStatus = 'off';

/** True while the stream is open: pushed events keep the live queries current. */
export const isLive = (): boolean => status === 'up';

/**
 * A query's refetch interval: its own while the stream is down (the fallback), a longer one while
 * it is up (a safety net for an event lost on the way). TanStack Query re-reads it on each update.
 */
export const pollEvery = (streamDownMs: number, streamUpMs: number) => (): number =>
  isLive() ? streamUpMs : streamDownMs;

/** What the stream keeps current: re-read once whenever the stream comes up or goes down. */
const FOLLOWED_BY_THE_STREAM = ['bitcoin-price', 'block-height'] as const;

/** Writes one pushed event into the cache, or marks what it changed for a refetch. */
export function applyLiveEvent(client: QueryClient, event: LiveEvent): void {
  switch (event.type) {
    case 'price': {
      // Never back in time: a poll that answered after a newer push keeps the newer price.
      const shown = client.getQueryData<BitcoinPriceDto>(['bitcoin-price']);
      if (!shown || shown.time <= event.data.time)
        client.setQueryData(['bitcoin-price'], event.data);
      return;
    }
    case 'block': {
      // The tip query's watcher (useNewBlocks) refreshes what a block changes, as after a poll.
      const shown = client.getQueryData<number>(['block-height']);
      if (shown == null || shown < event.data.height)
        client.setQueryData(['block-height'], event.data.height);
      return;
    }
    case 'vault': {
      const { vault_id, kind } = event.data;
      // Only the pages that show this vault refetch: every page hears of every vault.
      void client.invalidateQueries({
        queryKey: ['vault'],
        predicate: (query) =>
          (query.state.data as VaultDto | null | undefined)?.vault_id === vault_id,
      });
      void client.invalidateQueries({ queryKey: ['vault-history', vault_id] });
      void client.invalidateQueries({ queryKey: ['vault-points', vault_id] });
      // Its liquidation's outcome too: a repossession the owner's exit beat to the chain turns
      // from repossessed to taken back by the exit, with no new liquidation.
      void client.invalidateQueries({ queryKey: ['vault-liquidation', vault_id] });
      // The list refetches for a new liquidation and for any change of a vault it lists (a
      // repossession, or its owner taking it back through the exit leaf, announced as an action).
      const listed = client.getQueryData<LiquidatedVaultDto[]>(['liquidations']);
      if (kind === 'liquidation' || listed?.some((vault) => vault.vault_id === vault_id))
        void client.invalidateQueries({ queryKey: ['liquidations'] });
      return;
    }
  }
}

/**
 * Opens the stream and keeps it (EventSource reconnects by itself after a drop or the server's
 * periodic close). Without EventSource (an old browser, a test without one) the app only polls.
 * Returns the function that closes it.
 */
export function connectLive(client: QueryClient, url = LIVE_EVENTS_URL): () => void {
  if (typeof EventSource === 'undefined') return () => undefined;
  let source: EventSource | null = null;
  let reopen: ReturnType<typeof setTimeout> | null = null;
  const resync = () => {
    for (const key of FOLLOWED_BY_THE_STREAM) void client.invalidateQueries({ queryKey: [key] });
  };
  const open = () => {
    const current = new EventSource(new URL(url, window.location.href));
    source = current;
    status = 'connecting';
    current.onopen = () => {
      // Events sent while the stream was down are lost: read once what they would have changed.
      if (status !== 'up') resync();
      status = 'up';
    };
    current.onerror = () => {
      if (status === 'up') resync();
      status = 'connecting';
      // A drop reconnects by itself; a refusal (429, 404) closes for good, so ask again later.
      if (current.readyState === EventSource.CLOSED)
        reopen = setTimeout(open, REOPEN_AFTER_REFUSAL_MS);
    };
    for (const type of LIVE_EVENT_TYPES) {
      current.addEventListener(type, (message: MessageEvent<string>) => {
        const event = parseLiveEvent(type, message.data);
        if (event) applyLiveEvent(client, event);
      });
    }
  };
  open();
  return () => {
    if (reopen) clearTimeout(reopen);
    source?.close();
    status = 'off';
  };
}

// Live state (GET /api/events, a text/event-stream): what the server pushes to every open page so
// the price, the chain tip and a vault's state change on screen together, without waiting for a
// poll. One parser for both ends: the server re-reads what other instances NOTIFY, the browser
// what the stream carries; anything malformed is dropped, never trusted.
import type { BitcoinPriceDto, PriceStaleReason } from './api';

/** The event names of the stream, one per kind of change. */
export const LIVE_EVENT_TYPES = ['price', 'block', 'vault'] as const;
export type LiveEventType = (typeof LIVE_EVENT_TYPES)[number];

/** `vault`: its history grew (an action, a confirmation) or its status changed (liquidation). */
export interface VaultChangeDto {
  vault_id: string;
  /** 'liquidation' also changes the list of liquidated vaults (GET /api/liquidations). */
  kind: 'action' | 'liquidation';
}

export interface BlockDto {
  height: number;
}

export type LiveEvent =
  | { type: 'price'; data: BitcoinPriceDto }
  | { type: 'block'; data: BlockDto }
  | { type: 'vault'; data: VaultChangeDto };

/** A vault id is a txid: 64 hex digits. */
const VAULT_ID = /^[0-9a-f]{64}$/;
/** An event is a few dozen bytes; anything longer is not ours. */
const MAX_EVENT_BYTES = 512;

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const isWhole = (value: unknown): value is number =>
  typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;

const STALE_REASONS: readonly unknown[] = [
  'no_quorum',
  'no_fresh_price',
] satisfies PriceStaleReason[];

/** A price event's stale fields (a stale price says why), only when both are well formed. */
function staleOf(data: Record<string, unknown>): Pick<BitcoinPriceDto, 'stale' | 'stale_reason'> {
  if (data.stale !== true) return {};
  return STALE_REASONS.includes(data.stale_reason)
    ? { stale: true, stale_reason: data.stale_reason as PriceStaleReason }
    : { stale: true };
}

/** The event of one stream message (`event:` name, `data:` JSON), or null when it is not valid. */
export function parseLiveEvent(type: string, json: string): LiveEvent | null {
  if (json.length > MAX_EVENT_BYTES) return null;
  let data: unknown;
  try {
    data = JSON.parse(json);
  } catch {
    return null;
  }
  if (!isRecord(data)) return null;
  switch (type) {
    case 'price':
      return typeof data.USD === 'number' &&
        Number.isFinite(data.USD) &&
        data.USD > 0 &&
        isWhole(data.time)
        ? { type, data: { USD: data.USD, time: data.time, ...staleOf(data) } }
        : null;
    case 'block':
      return isWhole(data.height) ? { type, data: { height: data.height } } : null;
    case 'vault':
      return typeof data.vault_id === 'string' &&
        VAULT_ID.test(data.vault_id) &&
        (data.kind === 'action' || data.kind === 'liquidation')
        ? { type, data: { vault_id: data.vault_id, kind: data.kind } }
        : null;
    default:
      return null;
  }
}

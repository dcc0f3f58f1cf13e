// GET /api/events: the live state as Server-Sent Events (text/event-stream). Every instance's
// streams carry every event of the cluster (cluster/bus.ts): `price` {USD, time}, `block` {height},
// `vault` {vault_id, kind}. The caller is anonymous and sends nothing after its request, so nothing
// it does holds a resource for long: connections are capped per address and in all, a reader too
// slow to take its events is dropped, and every stream ends after a while (EventSource reconnects).
import type { FastifyInstance } from 'fastify';
import type { ServerResponse } from 'node:http';
import type { LiveEvent } from '@unit/protocol';
import type { EventBus } from '../cluster';
import { ApiError } from './errors';

export interface LiveStreamOptions {
  /** Open streams per client address (a browser holds one per tab). */
  maxPerAddress?: number;
  /** Open streams on this instance. */
  maxStreams?: number;
  /** A comment line this often keeps proxies from closing a quiet stream. */
  heartbeatMs?: number;
  /** Each stream ends after this long; the browser reconnects after `retry`. */
  maxAgeMs?: number;
  /** How long the browser waits before reconnecting (the `retry:` field). */
  retryMs?: number;
}

export const LIVE_DEFAULTS = {
  maxPerAddress: 8,
  maxStreams: 2_000,
  heartbeatMs: 15_000,
  maxAgeMs: 10 * 60_000,
  retryMs: 3_000,
} as const;

/** Unsent bytes past which a reader counts as stalled: events are ~100 bytes each. */
const MAX_BUFFERED_BYTES = 64 * 1024;

const frame = (event: LiveEvent) => `event: ${event.type}\ndata: ${JSON.stringify(event.data)}\n\n`;

export interface LiveStreams {
  /** Open streams on this instance. */
  count(): number;
}

export function registerEventRoutes(
  app: FastifyInstance,
  deps: {
    bus: EventBus;
    /** What a new stream is told first, so a page is current without waiting for a change. */
    initial: () => LiveEvent[];
    options?: LiveStreamOptions;
  },
): LiveStreams {
  const limits = { ...LIVE_DEFAULTS, ...deps.options };
  const streams = new Set<ServerResponse>();
  const perAddress = new Map<string, number>();

  const send = (res: ServerResponse, text: string) => {
    if (res.writableLength > MAX_BUFFERED_BYTES) {
      res.destroy();
      return;
    }
    res.write(text);
  };

  const unsubscribe = deps.bus.subscribe((event) => {
    const text = frame(event);
    for (const res of streams) send(res, text);
  });
  const heartbeat = setInterval(() => {
    for (const res of streams) send(res, ': ping\n\n');
  }, limits.heartbeatMs);
  heartbeat.unref();
  app.addHook('onClose', async () => {
    unsubscribe();
    clearInterval(heartbeat);
    for (const res of streams) res.end();
  });

  app.get('/api/events', async (request, reply) => {
    const address = request.ip;
    const fromAddress = perAddress.get(address) ?? 0;
    // Cheap refusals first: nothing is held for a caller over its share.
    if (streams.size >= limits.maxStreams || fromAddress >= limits.maxPerAddress)
      throw new ApiError(429, 'rate_limited', 'Too many live connections, try again shortly');
    perAddress.set(address, fromAddress + 1);
    const res = reply.raw;
    reply.hijack();
    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache, no-transform',
      connection: 'keep-alive',
      // nginx and similar proxies buffer responses unless told not to.
      'x-accel-buffering': 'no',
      'x-content-type-options': 'nosniff',
    });
    streams.add(res);
    const ageLimit = setTimeout(() => res.end(), limits.maxAgeMs);
    ageLimit.unref();
    res.on('close', () => {
      clearTimeout(ageLimit);
      if (!streams.delete(res)) return;
      const left = (perAddress.get(address) ?? 1) - 1;
      if (left > 0) perAddress.set(address, left);
      else perAddress.delete(address);
    });
    res.write(`retry: ${limits.retryMs}\n\n`);
    for (const event of deps.initial()) send(res, frame(event));
  });

  return { count: () => streams.size };
}

// GET /api/events: the live state as Server-Sent Events (text/event-stream). Every instance's
// streams carry every event of the cluster (cluster/bus.ts): `price` {USD, time}, `block` {height},
// `vault` {vault_id, kind}. The caller is anonymous and sends nothing after its request, so nothing
// it does holds a resource for long: connections are capped per address and in all, a reader too
// slow to take its events is dropped, and every stream ends after a while (EventSource reconnects).
// The cap in all cannot be used to starve anyone: when it is reached, the address holding the most
// streams gives up its oldest one to a newcomer holding fewer (LiveStreamHolders below).
import type { FastifyInstance } from 'fastify';
import type { ServerResponse } from 'node:http';
import type { LiveEvent } from '@unit/protocol';
import type { EventBus } from '../cluster';
import { DomainError } from '../errors';
import { clientKey } from './client-key';
import { tableRoute } from './table-route';

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
  /** How long a stream closed to make room for another waits before reconnecting. */
  evictedRetryMs?: number;
}

export const LIVE_DEFAULTS = {
  maxPerAddress: 8,
  maxStreams: 10_000,
  heartbeatMs: 15_000,
  maxAgeMs: 10 * 60_000,
  retryMs: 3_000,
  evictedRetryMs: 30_000,
} as const;

/**
 * Unsent bytes past which a reader counts as stalled: events are ~100 bytes each, so this is
 * a hundred or more events behind. It bounds what a stream may hold beyond its fixed cost
 * (measured by `npm run bench -w @unit/server`).
 */
export const MAX_BUFFERED_BYTES = 16 * 1024;

/** Streams written to in one turn of the event loop (a few ms of work) before others' turn. */
const FANOUT_SLICE = 500;

const SSE_HEADERS = {
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-cache, no-transform',
  // nginx and similar proxies buffer responses unless told not to.
  'x-accel-buffering': 'no',
  'x-content-type-options': 'nosniff',
};

interface OpenStream {
  address: string;
  /** When the beat ends it (Date.now() ms). */
  endsAt: number;
}

/**
 * Fastify times and logs each response from its 'finish' (and 'error'), with a listener that holds
 * the request, the reply and the request's logger: a stream finishes only when it ends, so they
 * would be held all that while, most of what a stream costs. A stream's whole life is no
 * request's latency, so it is left out of those figures; its count is `unit_live_streams`.
 */
function releaseRequest(res: ServerResponse): void {
  for (const event of ['finish', 'error'] as const)
    for (const listener of res.listeners(event))
      if (listener.name === 'onResFinished') res.removeListener(event, listener as () => void);
}

const frame = (event: LiveEvent) => `event: ${event.type}\ndata: ${JSON.stringify(event.data)}\n\n`;

/**
 * Who holds the open streams, for the fair cap: each address's streams oldest first, and the
 * addresses by how many they hold, so the heaviest holder is found in O(1) however many there are.
 * Among addresses holding equally many, the one that got there first gives way first.
 */
export class LiveStreamHolders<S> {
  private readonly byAddress = new Map<string, Set<S>>();
  /** Addresses by the number of streams they hold (1..), each bucket in order of arrival. */
  private readonly byCount = new Map<number, Set<string>>();
  private most = 0;
  private total = 0;

  get size(): number {
    return this.total;
  }

  held(address: string): number {
    return this.byAddress.get(address)?.size ?? 0;
  }

  add(address: string, stream: S): void {
    let streams = this.byAddress.get(address);
    if (!streams) this.byAddress.set(address, (streams = new Set()));
    if (streams.has(stream)) return;
    this.move(address, streams.size, streams.size + 1);
    streams.add(stream);
    this.total++;
  }

  /** False when the stream was not held (already removed). */
  delete(address: string, stream: S): boolean {
    const streams = this.byAddress.get(address);
    if (!streams?.delete(stream)) return false;
    this.move(address, streams.size + 1, streams.size);
    if (streams.size === 0) this.byAddress.delete(address);
    this.total--;
    return true;
  }

  /**
   * The stream to close so that `address` may open one more: the oldest stream of the heaviest
   * holder, if that holder would still hold at least as many as `address` after the move (so two
   * addresses never take a stream back and forth), or any holder at all for an address holding
   * none, so a newcomer is never shut out. Null when `address` already holds its fair share.
   */
  victimFor(address: string): { address: string; stream: S } | null {
    const mine = this.held(address);
    if (this.most === 0) return null;
    if (this.most < mine + 2 && !(mine === 0 && this.most >= 1)) return null;
    const heaviest = this.byCount.get(this.most)!.values().next().value!;
    return { address: heaviest, stream: this.byAddress.get(heaviest)!.values().next().value! };
  }

  private move(address: string, from: number, to: number): void {
    if (from > 0) {
      const bucket = this.byCount.get(from)!;
      bucket.delete(address);
      if (bucket.size === 0) {
        this.byCount.delete(from);
        if (this.most === from) this.most = to > from ? to : from - 1;
      }
    }
    if (to > 0) {
      let bucket = this.byCount.get(to);
      if (!bucket) this.byCount.set(to, (bucket = new Set()));
      bucket.add(address);
      if (to > this.most) this.most = to;
    }
  }
}

export interface LiveStreams {
  /** Open streams on this instance. */
  count(): number;
  /** Streams closed so far to make room for a lighter holder. */
  evictions(): number;
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
  const holders = new LiveStreamHolders<ServerResponse>();
  // Each open stream costs its socket and response, one entry here and one in `holders`: no
  // closure, timer or listener of its own (the memory figure of `npm run bench:streams`).
  // In order of opening, so the oldest come first when the beat ends those past their age.
  const streams = new Map<ServerResponse, OpenStream>();
  let evictions = 0;

  const send = (res: ServerResponse, text: string) => {
    if (res.writableLength > MAX_BUFFERED_BYTES) {
      res.destroy();
      return;
    }
    res.write(text);
  };
  /** The one 'close' listener of every stream (`this` is its response). */
  function forget(this: ServerResponse) {
    const open = streams.get(this);
    if (!open) return;
    streams.delete(this);
    holders.delete(open.address, this);
  }

  /**
   * Visits the streams open now, a slice per turn of the event loop, so ten thousand writes do
   * not hold it from other requests. Events keep their order on every stream: a later walk
   * starts after an earlier one and moves as fast, so it never overtakes it.
   */
  const walk = (visit: (res: ServerResponse, open: OpenStream) => void) => {
    const open = [...streams];
    let at = 0;
    const step = () => {
      for (const end = Math.min(at + FANOUT_SLICE, open.length); at < end; at++) {
        const [res, entry] = open[at]!;
        if (streams.has(res)) visit(res, entry);
      }
      if (at < open.length) setImmediate(step);
    };
    step();
  };

  const unsubscribe = deps.bus.subscribe((event) => {
    // Serialised once, the same string written to every stream.
    const text = frame(event);
    walk((res) => send(res, text));
  });
  // One timer for all: each beat ends the streams past their age (within one beat) and keeps
  // the others alive through proxies that close a quiet connection.
  const heartbeat = setInterval(
    () => {
      const now = Date.now();
      walk((res, open) => (open.endsAt <= now ? res.end() : send(res, ': ping\n\n')));
    },
    Math.min(limits.heartbeatMs, limits.maxAgeMs),
  );
  heartbeat.unref();
  app.addHook('onClose', async () => {
    unsubscribe();
    clearInterval(heartbeat);
    for (const res of streams.keys()) res.end();
  });

  /** Closes a stream at once, telling its browser to come back later than usual. */
  const evict = ({ address, stream: res }: { address: string; stream: ServerResponse }) => {
    evictions++;
    // Forgotten now, not when its socket closes: the newcomer takes its place in this call.
    streams.delete(res);
    holders.delete(address, res);
    if (res.writableLength <= MAX_BUFFERED_BYTES) res.end(`retry: ${limits.evictedRetryMs}\n\n`);
    else res.destroy();
  };

  tableRoute(app, 'events', ({ request, reply }) => {
    const address = clientKey(request.ip);
    // Cheap refusals first: nothing is held for a caller over its share.
    if (holders.held(address) >= limits.maxPerAddress)
      throw new DomainError(
        'rate_limited',
        `Your address already holds ${limits.maxPerAddress} live connections, the most it may; close another tab of this site or try again in a minute.`,
      );
    if (holders.size >= limits.maxStreams) {
      const victim = holders.victimFor(address);
      if (!victim)
        throw new DomainError(
          'rate_limited',
          'This server holds as many live connections as it can; try again in a minute.',
        );
      evict(victim);
    }
    const res = reply.raw;
    reply.hijack();
    // The document headers set by the hooks (CSP and the like: a kilobyte held per response for
    // as long as it is open) mean nothing to an event stream; its own few replace them.
    for (const name of res.getHeaderNames()) res.removeHeader(name);
    // Node keeps the head it wrote for as long as the response is open: only the lines needed.
    res.sendDate = false;
    res.writeHead(200, SSE_HEADERS);
    // No idle timer per socket: the beat writes to every stream, and a reader that stops taking
    // what is written is dropped by its unsent bytes (send).
    res.socket?.setTimeout(0);
    streams.set(res, { address, endsAt: Date.now() + limits.maxAgeMs });
    holders.add(address, res);
    res.on('close', forget);
    res.on('error', forget);
    releaseRequest(res);
    res.write(`retry: ${limits.retryMs}\n\n`);
    for (const event of deps.initial()) send(res, frame(event));
    return reply;
  });

  return { count: () => streams.size, evictions: () => evictions };
}

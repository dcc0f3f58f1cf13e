// GET /api/events: the live state as Server-Sent Events (text/event-stream). Every instance's
// streams carry every event of the cluster (cluster/bus.ts): `price` {USD, time}, `block` {height},
// `vault` {vault_id, kind}. The caller is anonymous and sends nothing after its request, so nothing
// it does holds a resource for long: connections are capped per address and in all, a reader too
// slow to take its events is dropped, and every stream ends after a while (EventSource reconnects).
// The cap in all cannot be used to starve anyone: when it is reached, the address holding the most
// streams gives up its oldest one to a newcomer holding fewer (LiveStreamHolders below). An open
// stream is held by its socket alone (events-socket.ts).
import type { FastifyInstance } from 'fastify';
import type { Socket } from 'node:net';
import type { LiveEvent } from '@unit/protocol';
import type { EventBus } from '../cluster';
import { DomainError } from '../errors';
import { clientKey } from './client-key';
import { holdStream, STREAM_HEAD, STREAM_HEADERS } from './events-socket';
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

interface OpenStream {
  address: string;
  /** When the beat ends it (Date.now() ms). */
  endsAt: number;
}

const frame = (event: LiveEvent) =>
  Buffer.from(`event: ${event.type}\ndata: ${JSON.stringify(event.data)}\n\n`);
const PING = Buffer.from(': ping\n\n');

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
  const holders = new LiveStreamHolders<Socket>();
  // Each open stream costs its socket, one entry here and one in `holders`: no closure, timer or
  // listener of its own (the memory figure of `npm run bench:streams`). In order of opening, so
  // the oldest come first when the beat ends those past their age.
  const streams = new Map<Socket, OpenStream>();
  let evictions = 0;

  const send = (socket: Socket, bytes: Buffer) => {
    if (socket.writableLength > MAX_BUFFERED_BYTES) socket.destroy();
    else socket.write(bytes);
  };
  /** The one 'close' and 'error' listener of every stream (`this` is its socket). */
  function forget(this: Socket) {
    const open = streams.get(this);
    if (!open) return;
    streams.delete(this);
    holders.delete(open.address, this);
  }
  /**
   * Ends a stream with `last` written, once it is sent (a reader too far behind at once), and
   * forgets it now, not when its socket closes: nothing more is written to it, and a newcomer
   * may take its place at once.
   */
  const close = (socket: Socket, address: string, last?: Buffer) => {
    streams.delete(socket);
    holders.delete(address, socket);
    if (socket.writableLength > MAX_BUFFERED_BYTES) return void socket.destroy();
    if (last) socket.write(last);
    socket.destroySoon();
  };

  /**
   * Visits the streams open now, a slice per turn of the event loop, so ten thousand writes do
   * not hold it from other requests. Events keep their order on every stream: a later walk
   * starts after an earlier one and moves as fast, so it never overtakes it.
   */
  const walk = (visit: (socket: Socket, open: OpenStream) => void) => {
    const open = [...streams];
    let at = 0;
    const step = () => {
      for (const end = Math.min(at + FANOUT_SLICE, open.length); at < end; at++) {
        const [socket, entry] = open[at]!;
        if (streams.has(socket)) visit(socket, entry);
      }
      if (at < open.length) setImmediate(step);
    };
    step();
  };

  const unsubscribe = deps.bus.subscribe((event) => {
    // Serialised once, the same bytes written to every stream.
    const bytes = frame(event);
    walk((socket) => send(socket, bytes));
  });
  // One timer for all: each beat ends the streams past their age (within one beat) and keeps
  // the others alive through proxies that close a quiet connection.
  const heartbeat = setInterval(
    () => {
      const now = Date.now();
      walk((socket, open) =>
        open.endsAt <= now ? close(socket, open.address) : send(socket, PING),
      );
    },
    Math.min(limits.heartbeatMs, limits.maxAgeMs),
  );
  heartbeat.unref();
  // Before the server closes: its streams are no longer its connections, so it would wait for them.
  app.addHook('preClose', async () => {
    unsubscribe();
    clearInterval(heartbeat);
    for (const socket of streams.keys()) socket.destroy();
  });

  /** Closes a stream at once, telling its browser to come back later than usual. */
  const evictedRetry = Buffer.from(`retry: ${limits.evictedRetryMs}\n\n`);
  const evict = ({ address, stream }: { address: string; stream: Socket }) => {
    evictions++;
    close(stream, address, evictedRetry);
  };

  const retry = `retry: ${limits.retryMs}\n\n`;
  tableRoute(app, 'events', ({ request, reply }) => {
    // HEAD tells what a stream would be without holding one.
    if (request.method === 'HEAD') return reply.headers(STREAM_HEADERS).send();
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
    reply.hijack();
    // The head with its own few headers (the document headers the hooks set, CSP and the like,
    // mean nothing to an event stream), the retry interval and the state now, in one write.
    const first = Buffer.concat([STREAM_HEAD, Buffer.from(retry), ...deps.initial().map(frame)]);
    const socket = holdStream(reply.raw, first, forget);
    if (socket) {
      streams.set(socket, { address, endsAt: Date.now() + limits.maxAgeMs });
      holders.add(address, socket);
    }
    return reply;
  });

  return { count: () => streams.size, evictions: () => evictions };
}

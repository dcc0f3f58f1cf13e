// JSON-RPC 2.0 over one WebSocket: requests are validated with zod at the edge, handlers get typed
// params and a way to push notifications (the guardian's progress steps) to the same socket.
// RpcSocketPolicy holds the transport's limits against uncooperative clients: message size, calls
// per connection and per client address, sockets per address, idle time and the page's Origin.
import { randomBytes } from 'node:crypto';
import type { WebSocket } from 'ws';
import type { Logger } from 'pino';
import * as z from 'zod';
import type { ApiErrorDto } from '@unit/protocol';
import { DomainError } from '../errors';

export const RPC_PARSE_ERROR = -32700;
export const RPC_INVALID_REQUEST = -32600;
export const RPC_METHOD_NOT_FOUND = -32601;
export const RPC_INVALID_PARAMS = -32602;
/** Every domain refusal; `data` carries `{error, code}`. */
export const RPC_DOMAIN_ERROR = -32000;

/** Who is calling: one socket, and the address it came from. */
export interface RpcClient {
  connectionId: string;
  address: string;
}

export interface RpcContext {
  notify(method: string, params: unknown): void;
  /** The socket's client; absent for in-process callers (tests call methods directly). */
  client?: RpcClient;
}

export interface RpcMethod<P> {
  params: z.ZodType<P>;
  handler(params: P, ctx: RpcContext): Promise<unknown>;
}

/** Declares a method so its params type flows from its schema to its handler. */
export function rpcMethod<P>(
  params: z.ZodType<P>,
  handler: (params: P, ctx: RpcContext) => Promise<unknown>,
): RpcMethod<P> {
  return { params, handler };
}

const requestSchema = z.object({
  jsonrpc: z.literal('2.0'),
  id: z.union([z.string().max(100), z.number().int()]).optional(),
  method: z.string().min(1).max(100),
  params: z.unknown().optional(),
});

interface RpcErrorBody {
  code: number;
  message: string;
  data?: ApiErrorDto;
}

export interface RpcLimits {
  /** Largest message parsed; a larger one closes the socket (1009). */
  maxPayloadBytes: number;
  /** Calls one socket may make per window. */
  callsPerConnection: number;
  /** Calls all sockets of one client address may make per window. */
  callsPerAddress: number;
  windowMs: number;
  /** Open sockets per client address; one more is closed at once (1013). */
  socketsPerAddress: number;
  /** A socket with no message either way for this long is closed. */
  idleMs: number;
  /** Page origins accepted besides the app's own (`https://host[:port]`). */
  origins: string[];
}

/**
 * Counts one call of `key` in a window shared by every instance (PostgreSQL), answering the
 * window's calls; without it each instance counts alone (SQLite: one instance).
 */
export type SharedCallCount = (key: string, windowMs: number) => Promise<number>;

/**
 * The largest legitimate message is a vault request whose PSBT is at its schema cap (200,000
 * base64 characters, @unit/protocol/wire psbtSchema; real ones are a few kilobytes) with its envelope.
 */
export const MAX_RPC_PAYLOAD_BYTES = 256 * 1024;

export const DEFAULT_RPC_LIMITS: RpcLimits = {
  maxPayloadBytes: MAX_RPC_PAYLOAD_BYTES,
  // A vault flow makes two calls on its own socket (reserve, then the request).
  callsPerConnection: 20,
  callsPerAddress: 120,
  windowMs: 60_000,
  socketsPerAddress: 16,
  // Longer than a reservation lives (cosign/reserve.ts): a socket waits quietly while the user
  // reads the wallet prompt.
  idleMs: 330_000,
  origins: [],
};

/** A fixed-window counter per key, purged of stale windows as it grows. */
class WindowCounter {
  private readonly windows = new Map<string, { count: number; resetAt: number }>();
  constructor(
    private readonly limit: number,
    private readonly windowMs: number,
  ) {}

  /** Counts one call; returns the key's calls in this window, this one included. */
  hit(key: string, now: number): number {
    if (this.windows.size > 10_000)
      for (const [k, w] of this.windows) if (w.resetAt <= now) this.windows.delete(k);
    let window = this.windows.get(key);
    if (!window || window.resetAt <= now) {
      window = { count: 0, resetAt: now + this.windowMs };
      this.windows.set(key, window);
    }
    window.count += 1;
    return window.count;
  }

  over(count: number): boolean {
    return count > this.limit;
  }
}

/** The limits of one server's /guardian sockets; shared by every socket it serves. */
export class RpcSocketPolicy {
  readonly limits: RpcLimits;
  private readonly perAddress: WindowCounter;
  private readonly sockets = new Map<string, number>();

  constructor(
    limits: Partial<RpcLimits> = {},
    /** Calls per address counted across instances too, once a call passes every local check. */
    readonly sharedCallCount: SharedCallCount | null = null,
  ) {
    this.limits = { ...DEFAULT_RPC_LIMITS, ...limits };
    this.perAddress = new WindowCounter(this.limits.callsPerAddress, this.limits.windowMs);
  }

  /**
   * Whether a page at `origin` may open a socket: the app's own origin (the host it was reached
   * at) and the configured ones. No Origin at all is a non-browser client (a script, a CLI): a
   * browser always sends one, so this refuses only what other sites' pages would do.
   */
  originAllowed(origin: string | undefined, host: string | undefined): boolean {
    if (origin === undefined) return true;
    let parsed: URL;
    try {
      parsed = new URL(origin);
    } catch {
      return false;
    }
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return false;
    if (host !== undefined && parsed.host === host.toLowerCase()) return true;
    return this.limits.origins.some((allowed) => allowed.replace(/\/$/, '') === parsed.origin);
  }

  /** Takes a socket slot for the address; false (and nothing taken) when it has none left. */
  open(address: string): boolean {
    const count = this.sockets.get(address) ?? 0;
    if (count >= this.limits.socketsPerAddress) return false;
    this.sockets.set(address, count + 1);
    return true;
  }

  close(address: string): void {
    const count = (this.sockets.get(address) ?? 1) - 1;
    if (count <= 0) this.sockets.delete(address);
    else this.sockets.set(address, count);
  }

  callAllowed(address: string, now = Date.now()): boolean {
    return !this.perAddress.over(this.perAddress.hit(address, now));
  }

  connectionCounter(): WindowCounter {
    return new WindowCounter(this.limits.callsPerConnection, this.limits.windowMs);
  }
}

export interface ServeOptions {
  /** The client address (Fastify's request.ip). */
  address: string;
  policy: RpcSocketPolicy;
  /** Called once the socket has closed, with the client it served. */
  onClose?(client: RpcClient): void;
}

/**
 * The vault and the request a call names (a vault request's vault_pubkey and nonce, already checked
 * by its schema), so a user's failed action can be found in the log; {} for other calls.
 */
function traceOf(params: unknown): { vault?: string; request?: string } {
  if (typeof params !== 'object' || params === null) return {};
  const p = params as { vault_pubkey?: unknown; nonce?: unknown; request?: unknown };
  const request = (p.request ?? p) as { vault_pubkey?: unknown; nonce?: unknown };
  return {
    ...(typeof request.vault_pubkey === 'string' ? { vault: request.vault_pubkey } : {}),
    ...(typeof request.nonce === 'string' ? { request: request.nonce } : {}),
  };
}

export function serveJsonRpc(
  socket: WebSocket,
  methods: Record<string, RpcMethod<unknown>>,
  log: Logger,
  options: ServeOptions = { address: 'local', policy: new RpcSocketPolicy() },
): void {
  const { policy, address } = options;
  const client: RpcClient = { connectionId: randomBytes(12).toString('hex'), address };
  if (!policy.open(address)) {
    log.info({ address }, 'guardian socket refused: too many from this address');
    socket.close(1013, 'Too many connections from this address');
    return;
  }
  const perConnection = policy.connectionCounter();
  let idle: NodeJS.Timeout | undefined;
  const touch = () => {
    clearTimeout(idle);
    idle = setTimeout(() => socket.close(1000, 'Idle'), policy.limits.idleMs);
    idle.unref();
  };
  touch();
  socket.on('close', () => {
    clearTimeout(idle);
    policy.close(address);
    options.onClose?.(client);
  });

  const send = (message: object) => {
    if (socket.readyState === socket.OPEN) {
      touch();
      socket.send(JSON.stringify(message));
    }
  };
  const ctx: RpcContext = {
    notify: (method, params) => send({ jsonrpc: '2.0', method, params }),
    client,
  };
  const fail = (id: string | number | null, error: RpcErrorBody) =>
    send({ jsonrpc: '2.0', id, error });

  socket.on('message', (raw) => {
    touch();
    // Every message counts, parsable or not: a flood costs the server a counter and a parse
    // (bounded by maxPayload); only a call within the local limits reaches the shared count (one
    // upsert). Twice over the limit closes the socket.
    const now = Date.now();
    const calls = perConnection.hit(client.connectionId, now);
    const withinAddress = policy.callAllowed(address, now);
    if (calls > 2 * policy.limits.callsPerConnection) {
      socket.close(1008, 'Too many calls');
      return;
    }
    const limited = perConnection.over(calls) || !withinAddress;
    let parsed: unknown;
    try {
      parsed = JSON.parse(String(raw));
    } catch {
      fail(null, { code: RPC_PARSE_ERROR, message: 'Parse error' });
      return;
    }
    const request = requestSchema.safeParse(parsed);
    if (!request.success) {
      fail(null, { code: RPC_INVALID_REQUEST, message: 'Invalid request' });
      return;
    }
    const { id, method, params } = request.data;
    const reply = id !== undefined;
    const refuseLimited = () => {
      const message = 'Too many calls; please wait a minute';
      if (reply)
        fail(id, {
          code: RPC_DOMAIN_ERROR,
          message,
          data: { error: message, code: 'rate_limited' },
        });
    };
    if (limited) return refuseLimited();
    const entry = Object.hasOwn(methods, method) ? methods[method] : undefined;
    if (!entry) {
      if (reply) fail(id, { code: RPC_METHOD_NOT_FOUND, message: `Unknown method ${method}` });
      return;
    }
    const checked = entry.params.safeParse(params);
    if (!checked.success) {
      const message = z.prettifyError(checked.error);
      if (reply)
        fail(id, {
          code: RPC_INVALID_PARAMS,
          message,
          data: { error: message, code: 'bad_request' },
        });
      return;
    }
    const trace = traceOf(checked.data);
    const run = () => {
      entry.handler(checked.data, ctx).then(
        (result) => {
          if (reply) send({ jsonrpc: '2.0', id, result });
        },
        (error: unknown) => {
          if (error instanceof DomainError) {
            log.info({ method, ...trace, code: error.code, reason: error.message }, 'rpc refused');
            if (reply)
              fail(id, {
                code: RPC_DOMAIN_ERROR,
                message: error.message,
                data: { error: error.message, code: error.code },
              });
            return;
          }
          log.error({ method, ...trace, err: error }, 'rpc failed');
          if (reply)
            fail(id, {
              code: RPC_DOMAIN_ERROR,
              message: 'Unknown error',
              data: { error: 'Unknown error', code: 'internal' },
            });
        },
      );
    };
    // A call that passed every local check is counted where all instances count (one upsert), so
    // a client spread over N instances by a balancer gets one address's calls, not N times them.
    if (policy.sharedCallCount) {
      policy.sharedCallCount(`guardian-calls ${address}`, policy.limits.windowMs).then(
        (count) => (count > policy.limits.callsPerAddress ? refuseLimited() : run()),
        (error: unknown) => {
          log.error({ method, err: error }, 'rpc call count failed');
          if (reply)
            fail(id, {
              code: RPC_DOMAIN_ERROR,
              message: 'Unknown error',
              data: { error: 'Unknown error', code: 'internal' },
            });
        },
      );
      return;
    }
    run();
  });
}

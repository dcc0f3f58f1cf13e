// The one JSON-RPC 2.0 client of the guardian: methods, params and results typed from the contract
// (guardian.ts), a time-out on every call, and every failure a DomainError matched by its code. The
// transport is a WebSocket (the web app, scripts and server tests) or any object answering one
// request at a time (the guardian in-process, in tests). Zod-free, so the browser's lazy chunk shares
// no zod module with the first one (whose pending list uses zod/mini): the answers are checked
// against the contract's schemas where `checkResult` is given (checked.ts, the server side).
import { DomainError } from '../domain-error';
import { ERROR_MESSAGES } from '../errors';
import { ERROR_CODES } from './codes';
import type { ErrorCode } from './fields';
import type {
  GuardianMethod,
  GuardianParams,
  GuardianResult,
  ProgressNotification,
} from './guardian';

/** A call's default time-out: longer than a vault request takes when the chain is slow. */
export const RPC_CALL_TIMEOUT_MS = 60_000;
/** How long opening a WebSocket may take. */
export const RPC_CONNECT_TIMEOUT_MS = 10_000;

/** Sends one request and settles with its result, or rejects with a DomainError. */
export interface RpcTransport {
  request(
    method: string,
    params: unknown,
    onNotification: (method: string, params: unknown) => void,
  ): Promise<unknown>;
  close(): void;
}

export interface CallOptions {
  /** Default RPC_CALL_TIMEOUT_MS (or the client's). */
  timeoutMs?: number;
  /** The message of this call's time-out; default SPEC §8's 'Request timed out. Please try again'. */
  timeoutMessage?: string;
  /** `vault.progress` steps of this request (matched by its nonce). */
  onProgress?: (step: 2 | 3 | 4 | 5) => void;
}

/** Checks an answer against the method's result schema; throws when it is not the contract. */
export type ResultCheck = (method: GuardianMethod, answer: unknown) => unknown;

export interface ClientOptions {
  timeoutMs?: number;
  checkResult?: ResultCheck;
}

export interface GuardianClient {
  call<M extends GuardianMethod>(
    method: M,
    params: GuardianParams<M>,
    options?: CallOptions,
  ): Promise<GuardianResult<M>>;
  close(): void;
}

const JSON_RPC_CODES: Record<number, ErrorCode> = {
  [-32700]: 'bad_request',
  [-32600]: 'bad_request',
  [-32601]: 'bad_request',
  [-32602]: 'bad_request',
};

const isErrorCode = (code: unknown): code is ErrorCode =>
  (ERROR_CODES as readonly unknown[]).includes(code);

/** The DomainError of a JSON-RPC error object: its data's code, else one by the JSON-RPC code. */
export function rpcErrorToDomain(error: unknown): DomainError {
  const body = (error ?? {}) as { code?: unknown; message?: unknown; data?: unknown };
  const message = typeof body.message === 'string' ? body.message : ERROR_MESSAGES.unknown;
  const data = (body.data ?? {}) as { error?: unknown; code?: unknown };
  if (isErrorCode(data.code) && typeof data.error === 'string')
    return new DomainError(data.code, data.error);
  const code = typeof body.code === 'number' ? JSON_RPC_CODES[body.code] : undefined;
  return new DomainError(code ?? 'internal', message);
}

/** A `vault.progress` step of the request with `nonce` (guardian.ts progressNotificationSchema). */
function progressStep(body: unknown, nonce: unknown): ProgressNotification['step'] | null {
  const { request, step } = (body ?? {}) as { request?: unknown; step?: unknown };
  if (typeof nonce !== 'string' || request !== nonce) return null;
  return step === 2 || step === 3 || step === 4 || step === 5 ? step : null;
}

function withTimeout<T>(ms: number, message: string, work: Promise<T>): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const limit = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new DomainError('timed_out', message)), ms);
  });
  return Promise.race([work, limit]).finally(() => clearTimeout(timer));
}

/** The typed client over a transport. */
export function guardianClient(
  transport: RpcTransport,
  defaults: ClientOptions = {},
): GuardianClient {
  return {
    async call(method, params, options = {}) {
      const nonce = (params as { nonce?: unknown }).nonce;
      const onNotification = (name: string, body: unknown) => {
        if (name !== 'vault.progress' || !options.onProgress) return;
        const step = progressStep(body, nonce);
        if (step !== null) options.onProgress(step);
      };
      const answer = await withTimeout(
        options.timeoutMs ?? defaults.timeoutMs ?? RPC_CALL_TIMEOUT_MS,
        options.timeoutMessage ?? ERROR_MESSAGES.timedOut,
        transport.request(method, params, onNotification),
      );
      const checked = defaults.checkResult ? defaults.checkResult(method, answer) : answer;
      return checked as GuardianResult<typeof method>;
    },
    close: () => transport.close(),
  };
}

/** The part of a WebSocket (the browser's, or the `ws` package's) the transport uses. */
export interface WebSocketLike {
  send(data: string): void;
  close(code?: number, reason?: string): void;
  addEventListener(type: 'open' | 'close' | 'error', listener: () => void): void;
  addEventListener(type: 'message', listener: (event: { data: unknown }) => void): void;
}

interface RpcMessage {
  id?: unknown;
  method?: unknown;
  params?: unknown;
  result?: unknown;
  error?: unknown;
}

/**
 * A JSON-RPC transport on one WebSocket, once it is open (rejects with 'unreachable' when it cannot
 * open within RPC_CONNECT_TIMEOUT_MS). Requests in flight when it closes reject with 'unreachable'.
 */
export function webSocketTransport(
  socket: WebSocketLike,
  connectTimeoutMs = RPC_CONNECT_TIMEOUT_MS,
): Promise<RpcTransport & { socket: WebSocketLike }> {
  let nextId = 1;
  const waiting = new Map<
    number,
    {
      resolve(value: unknown): void;
      reject(error: Error): void;
      onNotification(method: string, params: unknown): void;
    }
  >();
  let closed = false;
  socket.addEventListener('close', () => {
    closed = true;
    for (const entry of waiting.values())
      entry.reject(new DomainError('unreachable', 'The guardian connection closed'));
    waiting.clear();
  });
  socket.addEventListener('message', (event) => {
    let message: RpcMessage;
    try {
      message = JSON.parse(String(event.data)) as RpcMessage;
    } catch {
      return;
    }
    if (typeof message.method === 'string' && message.id === undefined) {
      for (const entry of waiting.values()) entry.onNotification(message.method, message.params);
      return;
    }
    const entry = typeof message.id === 'number' ? waiting.get(message.id) : undefined;
    if (!entry) return;
    waiting.delete(message.id as number);
    if (message.error !== undefined) entry.reject(rpcErrorToDomain(message.error));
    else entry.resolve(message.result);
  });
  const transport = {
    socket,
    request(method: string, params: unknown, onNotification: RpcNotificationHandler) {
      if (closed)
        return Promise.reject(new DomainError('unreachable', 'The guardian connection closed'));
      const id = nextId++;
      return new Promise<unknown>((resolve, reject) => {
        waiting.set(id, { resolve, reject, onNotification });
        socket.send(JSON.stringify({ jsonrpc: '2.0', id, method, params }));
      }).finally(() => waiting.delete(id));
    },
    close: () => socket.close(),
  };
  const unreachable = () => new DomainError('unreachable', 'Could not reach the guardian');
  return withTimeout(
    connectTimeoutMs,
    'Could not reach the guardian',
    new Promise<typeof transport>((resolve, reject) => {
      socket.addEventListener('open', () => resolve(transport));
      socket.addEventListener('error', () => reject(unreachable()));
      socket.addEventListener('close', () => reject(unreachable()));
    }),
  ).catch((error: unknown) => {
    socket.close();
    throw error instanceof DomainError && error.code === 'timed_out' ? unreachable() : error;
  });
}

type RpcNotificationHandler = (method: string, params: unknown) => void;

/** Opens a socket with `open` and the typed client over it. */
export async function connectGuardian(
  open: () => WebSocketLike,
  options: ClientOptions & { connectTimeoutMs?: number } = {},
): Promise<GuardianClient & { socket: WebSocketLike }> {
  const transport = await webSocketTransport(open(), options.connectTimeoutMs);
  return { ...guardianClient(transport, options), socket: transport.socket };
}

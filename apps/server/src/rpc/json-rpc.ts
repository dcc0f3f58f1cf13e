// JSON-RPC 2.0 over one WebSocket: requests are validated with zod at the edge, handlers get typed
// params and a way to push notifications (the guardian's progress steps) to the same socket.
import type { WebSocket } from 'ws';
import type { Logger } from 'pino';
import * as z from 'zod';
import type { ApiErrorDto, ErrorCode } from '@unit/protocol';

/** A failure the caller should see: an error code of api.ts and a message for people. */
export class DomainError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'DomainError';
  }
}

export const RPC_PARSE_ERROR = -32700;
export const RPC_INVALID_REQUEST = -32600;
export const RPC_METHOD_NOT_FOUND = -32601;
export const RPC_INVALID_PARAMS = -32602;
/** Every domain refusal; `data` carries `{error, code}`. */
export const RPC_DOMAIN_ERROR = -32000;

export interface RpcContext {
  notify(method: string, params: unknown): void;
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

export function serveJsonRpc(
  socket: WebSocket,
  methods: Record<string, RpcMethod<unknown>>,
  log: Logger,
): void {
  const send = (message: object) => {
    if (socket.readyState === socket.OPEN) socket.send(JSON.stringify(message));
  };
  const ctx: RpcContext = { notify: (method, params) => send({ jsonrpc: '2.0', method, params }) };
  const fail = (id: string | number | null, error: RpcErrorBody) =>
    send({ jsonrpc: '2.0', id, error });

  socket.on('message', (raw) => {
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
    entry.handler(checked.data, ctx).then(
      (result) => {
        if (reply) send({ jsonrpc: '2.0', id, result });
      },
      (error: unknown) => {
        if (error instanceof DomainError) {
          log.info({ method, code: error.code }, 'rpc refused');
          if (reply)
            fail(id, {
              code: RPC_DOMAIN_ERROR,
              message: error.message,
              data: { error: error.message, code: error.code },
            });
          return;
        }
        log.error({ method, err: error }, 'rpc failed');
        if (reply)
          fail(id, {
            code: RPC_DOMAIN_ERROR,
            message: 'Unknown error',
            data: { error: 'Unknown error', code: 'internal' },
          });
      },
    );
  });
}

// The tests' way to the guardian: the one typed JSON-RPC client of @unit/protocol/wire, on a /guardian
// WebSocket of a running app, or in-process on a Guardian's methods (as serveJsonRpc calls them:
// params through their zod schema, then the handler). Nothing here restates the wire.
import WebSocket from 'ws';
import {
  DomainError,
  type GuardianMethod,
  type GuardianParams,
  type GuardianResult,
} from '@unit/protocol';
import {
  checkGuardianResult,
  connectGuardian,
  guardianClient as uncheckedClient,
  type CallOptions,
  type GuardianClient,
  type RpcTransport,
  type WebSocketLike,
} from '@unit/protocol/wire';
import type { Guardian } from '../src/cosign';
import type { RpcContext } from '../src/rpc/json-rpc';

export type SocketClient = GuardianClient & { socket: WebSocket };

/** The /guardian WebSocket URL of an app at `baseUrl` (http://host:port). */
export const guardianUrl = (baseUrl: string) => `${baseUrl.replace(/^http/, 'ws')}/guardian`;

/** The one client on a new /guardian socket of the app at `baseUrl`. */
export async function openGuardian(
  baseUrl: string,
  options: { headers?: Record<string, string>; timeoutMs?: number } = {},
): Promise<SocketClient> {
  const client = await connectGuardian(
    () =>
      new WebSocket(guardianUrl(baseUrl), { headers: options.headers }) as unknown as WebSocketLike,
    { ...options, checkResult: checkGuardianResult },
  );
  return client as SocketClient;
}

/** One call on a socket of its own, closed after the answer. */
export async function callOnce<M extends GuardianMethod>(
  baseUrl: string,
  method: M,
  params: GuardianParams<M>,
  options?: CallOptions,
): Promise<GuardianResult<M>> {
  const client = await openGuardian(baseUrl);
  try {
    return await client.call(method, params, options);
  } finally {
    client.close();
  }
}

/** A transport that calls the guardian's methods in this process, with the caller's context. */
export function inProcess(guardian: Guardian, ctx: RpcContext): RpcTransport {
  return {
    async request(method, params, onNotification) {
      const entry = Object.hasOwn(guardian.methods, method) ? guardian.methods[method] : undefined;
      if (!entry) throw new DomainError('bad_request', `Unknown method ${method}`);
      const parsed = entry.params.safeParse(params);
      if (!parsed.success) throw new DomainError('bad_request', parsed.error.message);
      return entry.handler(parsed.data, {
        ...ctx,
        notify: (name, body) => {
          ctx.notify(name, body);
          onNotification(name, body);
        },
      });
    },
    close() {},
  };
}

/** The refusal code of a failing call, or 'ok'. */
export async function codeOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
    return 'ok';
  } catch (error) {
    if (error instanceof DomainError) return error.code;
    throw error;
  }
}

/** The one client over `transport`, every answer checked against the contract. */
export const guardianClient = (transport: RpcTransport): GuardianClient =>
  uncheckedClient(transport, { checkResult: checkGuardianResult });

// The one JSON-RPC client: typed calls over a transport, the answer checked against the contract,
// a time-out on every call, and every failure a DomainError matched by its code. The WebSocket
// framing is tested on an in-memory socket here; the server tests run it against the real app.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { DomainError } from '../domain-error';
import { ERROR_MESSAGES } from '../errors';
import {
  guardianClient,
  rpcErrorToDomain,
  webSocketTransport,
  type RpcTransport,
  type WebSocketLike,
} from './rpc-client';
import { draftEnvelope, signVaultRequest } from './envelope';
import { GUARDIAN_METHODS } from './guardian';
import { checkGuardianResult } from './checked';

const TXID = 'ab'.repeat(32);
const reserveParams = {
  unit_amount: 1_000,
  vault_action: 'open',
  vault_pubkey: 'cd'.repeat(32),
} as const;

/** A transport that answers each request with `answer` (or never, when it returns undefined). */
function transport(
  answer: (method: string, params: unknown) => Promise<unknown> | undefined,
): RpcTransport & { closed: boolean } {
  return {
    closed: false,
    request: (method, params) => answer(method, params) ?? new Promise(() => undefined),
    close() {
      this.closed = true;
    },
  };
}

const codeOf = (promise: Promise<unknown>) =>
  promise.then(
    () => 'ok',
    (error: unknown) =>
      error instanceof DomainError ? error.code : `not a DomainError: ${String(error)}`,
  );

afterEach(() => vi.useRealTimers());

describe('the guardian client', () => {
  it('answers the result, checked against the contract', async () => {
    const client = guardianClient(
      transport(async () => ({ vault_txid: TXID, extra: 1 })),
      { checkResult: checkGuardianResult },
    );
    await expect(client.call('vault.deposit', {} as never)).resolves.toEqual({ vault_txid: TXID });
  });

  it('refuses a result that is not the contract as internal', async () => {
    const answer = async () => ({ vault_txid: 'zz' });
    const client = guardianClient(transport(answer), { checkResult: checkGuardianResult });
    expect(await codeOf(client.call('vault.deposit', {} as never))).toBe('internal');
    // Unchecked (the browser's client), the answer is passed on as it came.
    const unchecked = guardianClient(transport(answer));
    await expect(unchecked.call('vault.deposit', {} as never)).resolves.toEqual({
      vault_txid: 'zz',
    });
  });

  it('times out a call that is never answered, with its own message when given', async () => {
    vi.useFakeTimers();
    const client = guardianClient(
      transport(() => undefined),
      { timeoutMs: 1_000 },
    );
    const plain = codeOf(client.call('unit.reserve', reserveParams));
    const own = client
      .call('unit.reserve', reserveParams, {
        timeoutMs: 30_000,
        timeoutMessage: ERROR_MESSAGES.userTimeout,
      })
      .catch((error: unknown) => error as DomainError);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(await plain).toBe('timed_out');
    await vi.advanceTimersByTimeAsync(29_000);
    expect(await own).toMatchObject({ code: 'timed_out', message: 'user timeout' });
  });

  it('maps a JSON-RPC error to a DomainError by its data code, else by the JSON-RPC code', () => {
    expect(
      rpcErrorToDomain({
        code: -32000,
        message: 'x',
        data: { error: 'Too late', code: 'expired' },
      }),
    ).toMatchObject({ code: 'expired', message: 'Too late' });
    expect(rpcErrorToDomain({ code: -32601, message: 'Unknown method' })).toMatchObject({
      code: 'bad_request',
    });
    expect(
      rpcErrorToDomain({ code: -32000, message: 'x', data: { code: 'no such code' } }).code,
    ).toBe('internal');
    expect(rpcErrorToDomain(null).code).toBe('internal');
  });
});

/** An in-memory socket: what the client sends is answered by `server`. */
function fakeSocket(
  server: (
    request: { id: number; method: string; params: unknown },
    push: (m: object) => void,
  ) => void,
) {
  const listeners = new Map<string, ((event: { data: unknown }) => void)[]>();
  const emit = (type: string, data?: unknown) =>
    (listeners.get(type) ?? []).forEach((listener) => listener({ data }));
  const socket: WebSocketLike & { emit: typeof emit; sent: string[] } = {
    sent: [],
    emit,
    send(data) {
      this.sent.push(data);
      const request = JSON.parse(data) as { id: number; method: string; params: unknown };
      queueMicrotask(() => server(request, (message) => emit('message', JSON.stringify(message))));
    },
    close: () => emit('close'),
    addEventListener(type: string, listener: (event: { data: unknown }) => void) {
      listeners.set(type, [...(listeners.get(type) ?? []), listener]);
    },
  };
  return socket;
}

describe('the WebSocket transport', () => {
  it("frames JSON-RPC 2.0, follows its request's progress by nonce, and answers", async () => {
    const draft = draftEnvelope(1_800_000_000, 120, (n) => new Uint8Array(n).fill(7));
    const request = await signVaultRequest({
      draft,
      payload: { deposit_amount: 1_000, tx_feerate: 2 },
      vaultPubkey: 'cd'.repeat(32),
      quote: {
        price_cents: 1,
        time: 2,
        th: 3,
        ts: 4,
        signature: 'ee'.repeat(64),
        extra: 'dropped',
      } as never,
      psbt: 'cHNidP8BAA==',
      sign: async (psbt) => `${psbt.slice(0, -2)}AA`,
    });
    expect(GUARDIAN_METHODS['vault.deposit'].params.safeParse(request).success).toBe(true);
    expect(request).toMatchObject({
      nonce: '07'.repeat(16),
      expires_at: 1_800_000_120,
      psbt: 'cHNidP8BAAAA',
      quote: { price_cents: 1, time: 2, th: 3, ts: 4, signature: 'ee'.repeat(64) },
    });
    expect(request).not.toHaveProperty('reservation_id');
    const socket = fakeSocket(({ id, params }, push) => {
      const { nonce } = params as { nonce: string };
      push({
        jsonrpc: '2.0',
        method: 'vault.progress',
        params: { request: 'ff'.repeat(16), step: 2 },
      });
      push({ jsonrpc: '2.0', method: 'vault.progress', params: { request: nonce, step: 2 } });
      push({ jsonrpc: '2.0', method: 'vault.progress', params: { request: nonce, step: 5 } });
      push({ jsonrpc: '2.0', id, result: { vault_txid: TXID } });
    });
    const opening = webSocketTransport(socket);
    socket.emit('open');
    const client = guardianClient(await opening);
    const steps: number[] = [];
    await expect(
      client.call('vault.deposit', request, { onProgress: (step) => steps.push(step) }),
    ).resolves.toEqual({ vault_txid: TXID });
    expect(steps).toEqual([2, 5]);
    expect(JSON.parse(socket.sent[0]!)).toEqual({
      jsonrpc: '2.0',
      id: 1,
      method: 'vault.deposit',
      params: request,
    });
  });

  it('rejects a refusal with its code, and every call in flight as unreachable when it closes', async () => {
    let answer = true;
    const socket = fakeSocket(({ id }, push) => {
      if (answer)
        push({
          jsonrpc: '2.0',
          id,
          error: { code: -32000, message: 'busy', data: { error: 'busy', code: 'vault_busy' } },
        });
    });
    const opening = webSocketTransport(socket);
    socket.emit('open');
    const client = guardianClient(await opening);
    expect(await codeOf(client.call('unit.reserve', reserveParams))).toBe('vault_busy');
    answer = false;
    const pending = codeOf(client.call('unit.reserve', reserveParams));
    client.close();
    expect(await pending).toBe('unreachable');
    expect(await codeOf(client.call('unit.reserve', reserveParams))).toBe('unreachable');
  });

  it('is unreachable when the socket fails or does not open in time', async () => {
    const failing = fakeSocket(() => undefined);
    const refused = codeOf(webSocketTransport(failing));
    failing.emit('error');
    expect(await refused).toBe('unreachable');
    vi.useFakeTimers();
    const silent = codeOf(
      webSocketTransport(
        fakeSocket(() => undefined),
        5_000,
      ),
    );
    await vi.advanceTimersByTimeAsync(5_000);
    expect(await silent).toBe('unreachable');
  });
});

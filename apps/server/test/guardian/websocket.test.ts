// The guardian over its real transport: JSON-RPC 2.0 on a WebSocket served by Fastify, with the
// tracker's progress notifications (SPEC §4 steps 2..5) arriving before the result.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import Fastify, { type FastifyInstance } from 'fastify';
import websocket from '@fastify/websocket';
import pino from 'pino';
import WebSocket from 'ws';
import { serveJsonRpc } from '../../src/rpc/json-rpc';
import { startHarness, type Harness, type TestWallet } from './harness';

interface Message {
  id?: number;
  method?: string;
  params?: { request: string; step: number };
  result?: unknown;
  error?: { code: number; data?: { code: string } };
}

/** Sends one request and collects every message up to and including its answer. */
function exchange(url: string, body: object): Promise<Message[]> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url);
    const received: Message[] = [];
    socket.on('open', () => socket.send(JSON.stringify(body)));
    socket.on('message', (raw) => {
      const message = JSON.parse(String(raw)) as Message;
      received.push(message);
      if (message.id !== undefined) {
        socket.close();
        resolve(received);
      }
    });
    socket.on('error', reject);
  });
}

describe('guardian JSON-RPC over WebSocket', () => {
  let h: Harness;
  let alice: TestWallet;
  let app: FastifyInstance;
  let url: string;
  beforeAll(async () => {
    h = await startHarness();
    alice = await h.wallet('alice');
    app = Fastify();
    await app.register(websocket);
    app.get('/guardian', { websocket: true }, (socket) =>
      serveJsonRpc(socket, h.guardian.methods, pino({ level: 'silent' })),
    );
    const address = await app.listen({ port: 0, host: '127.0.0.1' });
    url = `${address.replace('http', 'ws')}/guardian`;
  });
  afterAll(async () => {
    await app.close();
    await h.close();
  });

  it('reports progress steps 2, 3, 4, 5 for the request, then answers the txids', async () => {
    const { request } = await alice.open(1_000_000n, 50_000n);
    const messages = await exchange(url, {
      jsonrpc: '2.0',
      id: 1,
      method: 'vault.open',
      params: request,
    });
    const last = messages.at(-1)!;
    expect(last.error).toBeUndefined();
    expect(last).toMatchObject({
      id: 1,
      result: { vault_id: expect.stringMatching(/^[0-9a-f]{64}$/) },
    });
    const progress = messages.slice(0, -1);
    expect(progress.map((m) => m.method)).toEqual(Array(4).fill('vault.progress'));
    expect(progress.map((m) => m.params)).toEqual(
      [2, 3, 4, 5].map((step) => ({ request: request.nonce, step })),
    );
  });

  it('answers a refusal as a domain error carrying its code', async () => {
    const { request } = await alice.deposit(100_000n, { expiresIn: 0 });
    const messages = await exchange(url, {
      jsonrpc: '2.0',
      id: 2,
      method: 'vault.deposit',
      params: request,
    });
    expect(messages).toHaveLength(1);
    expect(messages[0]?.error).toMatchObject({ code: -32000, data: { code: 'expired' } });
  });
});

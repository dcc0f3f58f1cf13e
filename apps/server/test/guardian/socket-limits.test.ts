// The /guardian WebSocket of the real app against uncooperative clients: the
// largest message it parses, calls per connection and per address, sockets per address, idle
// sockets, the page's Origin, and reservations released when their socket closes. Every limit
// holds for loopback clients too; tests lower them through buildApp's guardianLimits.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { VAULT_NAME_MAX_LENGTH } from '@unit/protocol';
import { getReservation } from '../../src/store';
import { DEFAULT_RPC_LIMITS, MAX_RPC_PAYLOAD_BYTES } from '../../src/rpc/json-rpc';
import { GUARDIAN_METHODS } from '@unit/protocol/wire';
import type { BuildAppOptions } from '../../src/app';
import { loadConfig } from '../../src/config';
import { startTestApp, type RunningApp } from '../support';

interface Reply {
  id?: number;
  result?: { reservation_id?: string };
  error?: { code: number; data?: { code: string } };
}

function open(url: string, headers: Record<string, string> = {}): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url, { headers });
    socket.once('open', () => resolve(socket));
    socket.once('error', reject);
    socket.once('unexpected-response', (_req, res) =>
      reject(new Error(`refused with ${res.statusCode}`)),
    );
  });
}

let nextId = 1;
function rpc(socket: WebSocket, method: string, params: unknown): Promise<Reply> {
  const id = nextId++;
  return new Promise((resolve) => {
    const onMessage = (raw: WebSocket.RawData) => {
      const message = JSON.parse(String(raw)) as Reply;
      if (message.id !== id) return;
      socket.off('message', onMessage);
      resolve(message);
    };
    socket.on('message', onMessage);
    socket.send(JSON.stringify({ jsonrpc: '2.0', id, method, params }));
  });
}

const closed = (socket: WebSocket) =>
  new Promise<number>((resolve) => socket.once('close', (code) => resolve(code)));

const reserveParams = () => ({
  unit_amount: 1_000,
  vault_action: 'open',
  vault_pubkey: Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString('hex'),
});

async function withApp(
  options: BuildAppOptions,
  env: Record<string, string>,
  run: (url: string, unit: RunningApp) => Promise<void>,
) {
  const unit = await startTestApp(env, options);
  try {
    await run(`${unit.url.replace('http', 'ws')}/guardian`, unit);
  } finally {
    await unit.stop();
  }
}

describe('the /guardian socket with its default limits, on loopback', () => {
  let unit: RunningApp;
  let url: string;
  beforeAll(async () => {
    unit = await startTestApp();
    url = `${unit.url.replace('http', 'ws')}/guardian`;
  });
  afterAll(() => unit.stop());

  it('parses the largest request the schemas accept, and closes on a larger message', async () => {
    // The biggest legitimate message: a vault request whose PSBT is at its schema cap.
    const largest = {
      jsonrpc: '2.0',
      id: 1,
      method: 'vault.open',
      params: {
        payload: {
          borrow_amount: Number.MAX_SAFE_INTEGER,
          deposit_amount: Number.MAX_SAFE_INTEGER,
          vault_label: 'x'.repeat(VAULT_NAME_MAX_LENGTH),
          tx_feerate: 100_000,
        },
        vault_pubkey: 'ab'.repeat(32),
        psbt: 'A'.repeat(200_000),
        nonce: 'ab'.repeat(16),
        expires_at: 0xffff_ffff,
        quote: {
          price_cents: Number.MAX_SAFE_INTEGER,
          time: 0xffff_ffff,
          th: Number.MAX_SAFE_INTEGER,
          ts: 0xffff_ffff,
          signature: 'ab'.repeat(64),
        },
        reservation_id: 'ab'.repeat(16),
      },
    };
    expect(GUARDIAN_METHODS['vault.open'].params.safeParse(largest.params).success).toBe(true);
    expect(
      GUARDIAN_METHODS['vault.open'].params.safeParse({
        ...largest.params,
        psbt: 'A'.repeat(200_004),
      }).success,
    ).toBe(false);
    const size = Buffer.byteLength(JSON.stringify(largest));
    expect(size).toBeLessThanOrEqual(MAX_RPC_PAYLOAD_BYTES);
    expect(DEFAULT_RPC_LIMITS.maxPayloadBytes).toBe(MAX_RPC_PAYLOAD_BYTES);

    const socket = await open(url);
    const reply = await rpc(socket, 'vault.open', largest.params);
    // Parsed and refused by the guardian's rules, not by the transport.
    expect(reply.error?.data?.code).toBeDefined();
    const gone = closed(socket);
    socket.send('x'.repeat(MAX_RPC_PAYLOAD_BYTES + 1));
    expect(await gone).toBe(1009);
  });

  it('limits calls per connection for a loopback client', async () => {
    const socket = await open(url);
    const codes: string[] = [];
    for (let i = 0; i <= DEFAULT_RPC_LIMITS.callsPerConnection; i++) {
      const reply = await rpc(socket, 'unit.reserve', { unit_amount: -1 });
      codes.push(reply.error?.data?.code ?? 'ok');
    }
    expect(codes.slice(0, -1)).toEqual(
      Array(DEFAULT_RPC_LIMITS.callsPerConnection).fill('bad_request'),
    );
    expect(codes.at(-1)).toBe('rate_limited');
    // Unparsable messages count too; twice the limit closes the socket.
    const gone = closed(socket);
    for (let i = codes.length; i < 2 * DEFAULT_RPC_LIMITS.callsPerConnection; i++)
      socket.send('not json');
    await new Promise((r) => setTimeout(r, 100));
    expect(socket.readyState).toBe(WebSocket.OPEN);
    socket.send('not json');
    expect(await gone).toBe(1008);
  });
});

describe('the /guardian socket’s limits', () => {
  it('limits calls per client address across its sockets', async () => {
    await withApp({ guardianLimits: { callsPerAddress: 5 } }, {}, async (url) => {
      const a = await open(url);
      const b = await open(url);
      const codes: string[] = [];
      for (let i = 0; i < 6; i++) {
        const reply = await rpc(i % 2 ? a : b, 'unit.reserve', { unit_amount: -1 });
        codes.push(reply.error?.data?.code ?? 'ok');
      }
      expect(codes).toEqual([...Array(5).fill('bad_request'), 'rate_limited']);
      a.close();
      b.close();
    });
  });

  it('caps the sockets of one address and closes idle ones', async () => {
    await withApp({ guardianLimits: { socketsPerAddress: 2, idleMs: 300 } }, {}, async (url) => {
      const first = await open(url);
      const second = await open(url);
      const third = new WebSocket(url);
      const thirdClosed = closed(third);
      expect(await thirdClosed).toBe(1013);
      // Quiet for longer than idleMs: closed by the server, which frees the address's slots.
      const firstClosed = closed(first);
      const secondClosed = closed(second);
      expect(await firstClosed).toBe(1000);
      expect(await secondClosed).toBe(1000);
      const again = await open(url);
      const reply = await rpc(again, 'unit.reserve', { unit_amount: -1 });
      expect(reply.error?.data?.code).toBe('bad_request');
      again.close();
    });
  });

  it('accepts its own origin, configured ones and clients without one; refuses other sites', async () => {
    const env = { GUARDIAN_ORIGINS: 'https://app.example, https://other.example:8443/' };
    expect(loadConfig(env).guardianOrigins).toEqual([
      'https://app.example',
      'https://other.example:8443',
    ]);
    expect(() => loadConfig({ GUARDIAN_ORIGINS: 'app.example' })).toThrow(/GUARDIAN_ORIGINS/);
    await withApp({}, env, async (url) => {
      const own = new URL(url);
      const accepted: Record<string, string>[] = [
        {},
        { Origin: `http://${own.host}` },
        { Origin: 'https://app.example' },
        { Origin: 'https://other.example:8443' },
      ];
      for (const headers of accepted) {
        const socket = await open(url, headers);
        socket.close();
      }
      await expect(open(url, { Origin: 'https://evil.example' })).rejects.toThrow('403');
      await expect(open(url, { Origin: 'null' })).rejects.toThrow('403');
    });
  });

  it('releases a socket’s reservations when it closes', async () => {
    await withApp({}, {}, async (url, unit) => {
      const socket = await open(url);
      const reply = await rpc(socket, 'unit.reserve', reserveParams());
      const id = reply.result!.reservation_id!;
      expect((await getReservation(unit.store.db, id))?.status).toBe('active');
      socket.close();
      await expect
        .poll(async () => (await getReservation(unit.store.db, id))?.status)
        .toBe('released');
    });
  });
});

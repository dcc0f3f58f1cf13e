// Against the real server on a loopback port: time-outs for slow
// clients, body size, rate limits on every write, the devnet controls' same-origin rule, and a CSP
// that names only this origin and the configured services.
import http from 'node:http';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import type { ApiErrorDto } from '@unit/protocol';
import { ALICE } from './devnet/fixtures';
import { postJson, startTestApp, type RunningApp } from './support';

/** Resolves with how long the server took to end the connection, or null if it kept it. */
function trickle(
  url: string,
  head: string,
  drip: string,
  everyMs: number,
  giveUpMs: number,
): Promise<{ closedAfterMs: number | null; answer: string }> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const started = Date.now();
    const socket = net.connect(Number(port), hostname);
    let answer = '';
    let sent = 0;
    const timer = setInterval(() => {
      if (sent < drip.length && !socket.destroyed) socket.write(drip[sent++]!);
    }, everyMs);
    const done = (closedAfterMs: number | null) => {
      clearInterval(timer);
      clearTimeout(giveUp);
      socket.destroy();
      resolve({ closedAfterMs, answer });
    };
    const giveUp = setTimeout(() => done(null), giveUpMs);
    socket.on('data', (chunk) => (answer += String(chunk)));
    socket.on('close', () => done(Date.now() - started));
    socket.on('error', () => undefined);
    socket.write(head);
  });
}

describe('time-outs for slow clients', () => {
  let server: RunningApp;
  beforeAll(async () => {
    server = await startTestApp({ REQUEST_TIMEOUT: '1000', IDLE_TIMEOUT: '1000' });
  });
  afterAll(async () => {
    await server.stop();
  });

  it('cuts off a body trickled one byte at a time once the request time-out passes', async () => {
    const body = JSON.stringify({ address: 'tb1qtrickle00000000000000000' });
    const head =
      'POST /api/users HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n' +
      `Content-Length: ${body.length}\r\n\r\n`;
    // One byte every 250 ms would take about 9 s to finish; the server must not wait for it.
    const result = await trickle(server.url, head, body, 250, 6_000);
    expect(result.closedAfterMs).not.toBeNull();
    // 1 s time-out, checked every second by Node.
    expect(result.closedAfterMs!).toBeLessThan(3_500);
    expect(result.answer).toMatch(/^HTTP\/1\.1 408/);
  });

  it('cuts off headers trickled one byte at a time', async () => {
    const head = 'GET /api/health HTTP/1.1\r\n';
    const result = await trickle(server.url, head, 'X-Slow: ' + 'a'.repeat(40), 250, 6_000);
    expect(result.closedAfterMs).not.toBeNull();
    expect(result.closedAfterMs!).toBeLessThan(3_500);
  });

  it('closes a connection that sends nothing', async () => {
    const result = await trickle(server.url, '', '', 250, 6_000);
    expect(result.closedAfterMs).not.toBeNull();
    expect(result.closedAfterMs!).toBeLessThan(3_500);
  });

  it('leaves an upgraded guardian WebSocket to its own rules past the HTTP time-outs', async () => {
    const socket = new WebSocket(`${server.url.replace('http', 'ws')}/guardian`);
    await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    const answer = new Promise<string>((resolve) =>
      socket.once('message', (m) => resolve(String(m))),
    );
    socket.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'no.such.method' }));
    expect(JSON.parse(await answer)).toMatchObject({ id: 1, error: { code: -32601 } });
    socket.close();
  });
});

describe('rate limits and body size on every write', () => {
  let server: RunningApp;
  beforeAll(async () => {
    server = await startTestApp();
  });
  afterAll(async () => {
    await server.stop();
  });

  it('answers the 101st faucet call in a minute with 429 rate_limited, loopback included', async () => {
    // Refused bodies count too: the limit runs before the body is read.
    for (let i = 0; i < 100; i++) {
      const res = await postJson(`${server.url}/api/devnet/faucet`, { address: 'x', sats: 1 });
      expect(res.status).toBe(400);
    }
    const last = await postJson(`${server.url}/api/devnet/faucet`, {
      address: ALICE.address,
      sats: 100_000,
    });
    expect(last.status).toBe(429);
    expect((last.body as ApiErrorDto).code).toBe('rate_limited');
    expect(await server.devnet!.addressTxids(ALICE.address)).toEqual([]);
  });

  it('limits the esplora broadcast to 30 a minute by default', async () => {
    let status = 0;
    for (let i = 0; i < 31; i++) {
      const res = await fetch(`${server.url}/esplora/tx`, { method: 'POST', body: 'nothex' });
      status = res.status;
      await res.text();
      if (i < 30) expect(status).toBe(400);
    }
    expect(status).toBe(429);
  });

  it('refuses a 100 KiB body on /api with 413', async () => {
    const res = await postJson(`${server.url}/api/users`, {
      address: 'tb1qbig00000000000000000000',
      padding: 'x'.repeat(100 * 1024),
    });
    expect(res.status).toBe(413);
  });
});

describe('devnet controls accept only JSON from this app', () => {
  let server: RunningApp;
  beforeAll(async () => {
    server = await startTestApp();
  });
  afterAll(async () => {
    await server.stop();
  });

  const mine = (headers: Record<string, string>, body = '{"blocks":1}') =>
    fetch(`${server.url}/api/devnet/mine`, { method: 'POST', headers, body });
  const height = async () => (await server.devnet!.tip()).height;

  it('refuses a text/plain POST from another origin and mines nothing', async () => {
    const before = await height();
    const res = await mine({
      'content-type': 'text/plain',
      origin: 'http://evil.example',
      'sec-fetch-site': 'cross-site',
    });
    expect(res.status).toBe(415);
    expect(((await res.json()) as ApiErrorDto).code).toBe('bad_request');
    expect(await height()).toBe(before);
  });

  it('refuses a text/plain POST even without an Origin', async () => {
    const before = await height();
    expect((await mine({ 'content-type': 'text/plain' })).status).toBe(415);
    expect(await height()).toBe(before);
  });

  it('refuses JSON from another origin, another site of the same host, and a null origin', async () => {
    const before = await height();
    const json = { 'content-type': 'application/json' };
    expect((await mine({ ...json, origin: 'http://evil.example' })).status).toBe(403);
    expect((await mine({ ...json, 'sec-fetch-site': 'same-site' })).status).toBe(403);
    expect((await mine({ ...json, origin: 'null' })).status).toBe(403);
    const price = await fetch(`${server.url}/api/devnet/price`, {
      method: 'POST',
      headers: { ...json, origin: 'http://evil.example' },
      body: '{"usd":1}',
    });
    expect(price.status).toBe(403);
    expect(server.oracle.price().priceCents).not.toBe(100);
    expect(await height()).toBe(before);
  });

  it('refuses a page re-pointed at loopback by DNS rebinding, as Host and Origin agree', async () => {
    const before = await height();
    const { port } = new URL(server.url);
    const status = await new Promise<number>((resolve, reject) => {
      const req = http.request(
        {
          host: '127.0.0.1',
          port,
          method: 'POST',
          path: '/api/devnet/mine',
          headers: {
            host: `rebind.example:${port}`,
            origin: `http://rebind.example:${port}`,
            'sec-fetch-site': 'same-origin',
            'content-type': 'application/json',
          },
        },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.once('error', reject);
      req.end('{"blocks":1}');
    });
    expect(status).toBe(403);
    expect(await height()).toBe(before);
  });

  it("accepts JSON from the app's own pages and from a tool that sends no Origin", async () => {
    const before = await height();
    const own = new URL(server.url);
    const fromPage = await mine({
      'content-type': 'application/json',
      origin: own.origin,
      'sec-fetch-site': 'same-origin',
    });
    expect(fromPage.status).toBe(200);
    expect((await mine({ 'content-type': 'application/json; charset=utf-8' })).status).toBe(200);
    expect(await height()).toBe(before + 2);
  });
});

describe('the content security policy', () => {
  let server: RunningApp;
  beforeAll(async () => {
    server = await startTestApp({
      MEMPOOL_URL: 'https://mempool.example',
      EXPLORER_URL: 'https://explorer.example:8443/signet',
      ORDINALS_URL: 'https://ord.example/api',
    });
  });
  afterAll(async () => {
    await server.stop();
  });

  const directive = (csp: string, name: string) =>
    csp
      .split(';')
      .map((part) => part.trim().split(/\s+/))
      .find(([key]) => key === name)
      ?.slice(1) ?? [];

  it('names only this origin and the configured service origins for connections and images', async () => {
    // A page's policy: the API's answers carry one that allows nothing (security.ts, API_HEADERS).
    const res = await fetch(`${server.url}/liquidations`);
    await res.arrayBuffer();
    const csp = res.headers.get('content-security-policy') ?? '';
    const host = new URL(server.url).host;
    const services = [
      'https://mempool.example',
      'https://explorer.example:8443',
      'https://ord.example',
    ];
    expect(directive(csp, 'connect-src').sort()).toEqual(
      ["'self'", `ws://${host}`, `wss://${host}`, ...services].sort(),
    );
    expect(directive(csp, 'img-src').sort()).toEqual(["'self'", 'data:', ...services].sort());
    expect(csp).not.toMatch(/(^|\s)(https:|ws:|wss:)(\s|;|$)/);
  });
});

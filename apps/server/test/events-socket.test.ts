// GET /api/events on the wire, now that an open stream is held by its socket alone: the head and
// the first events as a reader receives them, the end of a stream past its age, a reader that sends
// more than its request, HEAD, and an app closing with streams open.
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type RunningApp } from './support';

interface RawReader {
  /** Everything received so far, head included. */
  text(): string;
  /** Resolves when the server closes the connection. */
  closed: Promise<void>;
  socket: net.Socket;
}

function rawRequest(url: string, request: string): RawReader {
  const { port } = new URL(url);
  const socket = net.connect({ port: Number(port), host: '127.0.0.1' });
  let text = '';
  socket.setEncoding('latin1');
  socket.on('data', (chunk: string) => (text += chunk));
  socket.on('error', () => undefined);
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  socket.write(request);
  return { text: () => text, closed, socket };
}

const GET = 'GET /api/events HTTP/1.1\r\nhost: localhost\r\naccept: text/event-stream\r\n\r\n';

const until = async (check: () => boolean, ms = 5_000) => {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 20));
  }
};

describe('GET /api/events held by its socket', () => {
  let unit: RunningApp;
  beforeAll(async () => {
    unit = await startTestApp({}, { live: { maxAgeMs: 600, heartbeatMs: 100 } });
  });
  afterAll(() => unit.stop());

  it('sends its own head, the retry interval and the price now, and ends past its age', async () => {
    const reader = rawRequest(unit.url, GET);
    await until(() => reader.text().includes('event: price'));
    const [head, body] = reader.text().split('\r\n\r\n') as [string, string];
    const lines = head.split('\r\n');
    expect(lines[0]).toBe('HTTP/1.1 200 OK');
    expect(lines).toContain('content-type: text/event-stream; charset=utf-8');
    expect(lines).toContain('cache-control: no-cache, no-transform');
    expect(lines).toContain('connection: close');
    // None of the document headers (CSP and the like) and no framing: the body runs to the close.
    expect(lines.some((l) => /^(content-security-policy|transfer-encoding):/i.test(l))).toBe(false);
    const { priceCents, timestamp } = unit.oracle.price();
    expect(body.startsWith('retry: 3000\n\nevent: price\n')).toBe(true);
    expect(body).toContain(`data: {"USD":${priceCents / 100},"time":${timestamp}}\n\n`);
    expect(unit.live.count()).toBe(1);
    // Past its age (600 ms, within a beat) the server closes it, and forgets it.
    await reader.closed;
    expect(reader.text()).toContain(': ping\n\n');
    await until(() => unit.live.count() === 0);
  });

  it('drops a reader that sends anything after its request', async () => {
    const reader = rawRequest(unit.url, GET);
    await until(() => reader.text().includes('event: price'));
    expect(unit.live.count()).toBe(1);
    // After the turn that parsed the request, the socket is the stream's own.
    await new Promise((r) => setTimeout(r, 50));
    reader.socket.write(GET);
    await reader.closed;
    await until(() => unit.live.count() === 0);
    expect(reader.text().split('HTTP/1.1').length - 1).toBe(1);
  });

  // The hand-over uses Node's own internals (its parser release and its listeners' names): if a
  // Node release changed them, streams would silently stay with the HTTP server, each holding its
  // request, response and parser again. The server's public closeAllConnections() closes every
  // connection it still holds, so a stream it still held would be closed here.
  it('takes the socket from the HTTP server once the head is written', async () => {
    const reader = rawRequest(unit.url, GET);
    let closed = false;
    void reader.closed.then(() => (closed = true));
    await until(() => reader.text().includes('event: price'));
    await new Promise((r) => setTimeout(r, 50));
    unit.app.server.closeAllConnections();
    await new Promise((r) => setTimeout(r, 200));
    expect(closed).toBe(false);
    expect(unit.live.count()).toBe(1);
    // Still a stream: the next beat reaches it.
    const before = reader.text().length;
    await until(() => reader.text().length > before);
    expect(reader.text().slice(before)).toContain(': ping\n\n');
    reader.socket.end();
    await reader.closed;
    await until(() => unit.live.count() === 0);
  });

  it('forgets a stream whose reader hangs up', async () => {
    const reader = rawRequest(unit.url, GET);
    await until(() => unit.live.count() === 1);
    await new Promise((r) => setTimeout(r, 50));
    reader.socket.end();
    await reader.closed;
    await until(() => unit.live.count() === 0);
  });

  it('answers HEAD with the headers of a stream and holds none', async () => {
    const res = await fetch(`${unit.url}/api/events`, { method: 'HEAD' });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(unit.live.count()).toBe(0);
  });
});

describe('GET /api/events when the app closes', () => {
  it('closes its open streams rather than wait for them', async () => {
    const unit = await startTestApp();
    const readers = [rawRequest(unit.url, GET), rawRequest(unit.url, GET)];
    await until(() => unit.live.count() === 2);
    await new Promise((r) => setTimeout(r, 50));
    const stopped = unit.stop().then(() => 'stopped');
    const late = new Promise((r) => setTimeout(() => r('still waiting'), 5_000));
    expect(await Promise.race([stopped, late])).toBe('stopped');
    await Promise.all(readers.map((r) => r.closed));
  });
});

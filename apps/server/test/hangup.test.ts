// A client that hangs up as soon as it has sent its request: by the time the
// hooks run Node has forgotten the closed socket's address, and the rate limiter's key
// (request.ip) threw a TypeError, logged as a failed request, every time. Raw sockets send a write
// and reset the connection at once; the server must log nothing and keep answering.
import net from 'node:net';
import pino from 'pino';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestApp, type RunningApp } from './support';

let server: RunningApp;
let proxied: RunningApp;
const logged: string[] = [];

beforeAll(async () => {
  const logger = pino({ level: 'warn' }, { write: (line: string) => void logged.push(line) });
  server = await startTestApp({}, { logger });
  // Behind a trusted proxy request.ip is worked out from X-Forwarded-For and the socket's peer.
  proxied = await startTestApp({ TRUST_PROXY: 'loopback' }, { logger });
});
afterAll(async () => {
  await server.stop();
  await proxied.stop();
});

/** Sends `request` and resets the connection without waiting for an answer. */
const hangUp = (port: number, request: string) =>
  new Promise<void>((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => {
      socket.write(request);
      socket.resetAndDestroy();
      resolve();
    });
    socket.on('error', reject);
  });

it('does nothing for a client that hung up, and logs no error', async () => {
  for (const app of [server, proxied]) await hangUps(app);
  // Give the servers the time to have logged whatever they were going to.
  await new Promise((resolve) => setTimeout(resolve, 300));
  expect(logged.filter((line) => /TypeError|request failed|errored/.test(line))).toEqual([]);
  for (const app of [server, proxied]) {
    expect((await fetch(`${app.url}/api/health`)).status).toBe(200);
    const res = await fetch(`${app.url}/api/auth/logout`, { method: 'POST' });
    expect(res.status).toBe(204);
  }
});

async function hangUps(app: RunningApp) {
  const port = Number(new URL(app.url).port);
  const host = `127.0.0.1:${port}`;
  for (let i = 0; i < 20; i++) {
    await hangUp(
      port,
      `POST /api/auth/logout HTTP/1.1\r\nHost: ${host}\r\nX-Forwarded-For: 203.0.113.9\r\nContent-Length: 0\r\n\r\n`,
    );
    await hangUp(
      port,
      `POST /api/auth/challenge HTTP/1.1\r\nHost: ${host}\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}`,
    );
  }
}

// postJson fails as fetch did, so every caller's reason reads the same ("timed out", "unreachable
// (ECONNREFUSED)"), and answers the reply's status and text over a reused keep-alive socket.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postJson } from './http-post';

describe('postJson', () => {
  let server: Server;
  let url: string;
  const sockets = new Set<unknown>();
  beforeAll(async () => {
    server = createServer((req, res) => {
      sockets.add(req.socket);
      if (req.url === '/silent') return; // never answers
      let body = '';
      req.on('data', (d: Buffer) => (body += d.toString()));
      req.on('end', () => {
        res.statusCode = req.url === '/refuse' ? 400 : 200;
        res.end(JSON.stringify({ echo: body }));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => {
    server.closeAllConnections();
    server.close();
  });

  it('answers the status and text, on one kept-alive socket', async () => {
    expect(await postJson(`${url}/ok`, '{"a":1}', 5_000)).toEqual({
      status: 200,
      text: JSON.stringify({ echo: '{"a":1}' }),
    });
    expect((await postJson(`${url}/refuse`, '{}', 5_000)).status).toBe(400);
    expect(sockets.size).toBe(1);
  });

  it('fails with a TimeoutError when no answer comes in time', async () => {
    const started = Date.now();
    await expect(postJson(`${url}/silent`, '{}', 200)).rejects.toMatchObject({
      name: 'TimeoutError',
    });
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it('fails with the socket code as its cause when nobody listens', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const { port } = closed.address() as AddressInfo;
    await new Promise((resolve) => closed.close(resolve));
    await expect(postJson(`http://127.0.0.1:${port}/x`, '{}', 5_000)).rejects.toMatchObject({
      cause: { code: 'ECONNREFUSED' },
    });
  });

  it('sends once more, on a fresh connection, when a reused idle socket was reset unanswered', async () => {
    // The keep-alive race: the server drops an idle socket just as the next request comes on it.
    let requests = 0;
    const racing = createServer((req, res) => {
      requests++;
      if (requests === 2) return req.socket.resetAndDestroy();
      res.end(JSON.stringify({ n: requests }));
    });
    await new Promise<void>((resolve) => racing.listen(0, '127.0.0.1', resolve));
    const at = `http://127.0.0.1:${(racing.address() as AddressInfo).port}/x`;
    try {
      expect((await postJson(at, '{}', 5_000)).text).toBe('{"n":1}');
      expect((await postJson(at, '{}', 5_000)).text).toBe('{"n":3}');
      // A reset on a new connection is the other side's answer: not sent again.
      requests = 1;
      racing.closeAllConnections();
      await expect(postJson(at, '{}', 5_000)).rejects.toMatchObject({
        cause: { code: 'ECONNRESET' },
      });
      expect(requests).toBe(2);
    } finally {
      racing.closeAllConnections();
      racing.close();
    }
  });

  it('sends once more on a fresh socket when a kept-alive one dies unanswered, never otherwise', async () => {
    // Closes a request's socket without an answer: a reused socket the first time (as when the
    // server's keep-alive time-out closes it just as the request leaves), or every time.
    let seen = 0;
    const reused = new WeakSet<object>();
    let always = false;
    const flaky = createServer((req, res) => {
      seen++;
      if (always || (reused.has(req.socket) && seen === 2)) return req.socket.destroy();
      reused.add(req.socket);
      req.resume();
      req.on('end', () => res.end('ok'));
    });
    await new Promise<void>((resolve) => flaky.listen(0, '127.0.0.1', resolve));
    const at = `http://127.0.0.1:${(flaky.address() as AddressInfo).port}/`;
    try {
      expect((await postJson(at, '{}', 5_000)).text).toBe('ok');
      expect((await postJson(at, '{}', 5_000)).text).toBe('ok');
      expect(seen).toBe(3);
      // A socket that was not reused is not retried: the other side did get the request.
      always = true;
      flaky.closeAllConnections();
      await new Promise((resolve) => setTimeout(resolve, 50));
      seen = 0;
      await expect(postJson(at, '{}', 5_000)).rejects.toMatchObject({
        cause: { code: 'ECONNRESET' },
      });
      expect(seen).toBe(1);
    } finally {
      flaky.closeAllConnections();
      flaky.close();
    }
  });
});

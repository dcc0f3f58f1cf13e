// A chain service that loses, delays or refuses answers the way a real one does: a local proxy in
// front of the devnet's own esplora routes, for the tests of lost answers.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** The chain client's time-out in these tests: the 'delay' mode answers after three of them. */
export const TIMEOUT_MS = 1_000;

export type Mode =
  /** every call answered */
  | 'pass'
  /** POST /tx reaches the network, its answer is lost (the connection is cut) */
  | 'drop'
  /** POST /tx reaches the network, its answer comes after the client's time-out */
  | 'delay'
  /** POST /tx reaches the network, then the service is down (502) until told otherwise */
  | 'swallow'
  /** POST /tx never reaches the network, and the service is down from then on */
  | 'post-down'
  /** everything answered 502 */
  | 'down'
  /** every connection cut at once */
  | 'reset'
  /** nothing ever answered */
  | 'hang'
  /** as 'drop', and the indexer lags behind the node: it knows no transaction yet */
  | 'lag';

export async function startProxy(upstream: string) {
  const state = { mode: 'pass' as Mode, posts: 0 };
  /** Transactions the lagging indexer does not show yet. */
  const lagging = new Set<string>();
  const server = http.createServer((req, res) => {
    void (async () => {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      const isPost = req.method === 'POST' && /\/tx$/.test(req.url ?? '');
      const mode = state.mode;
      if (mode === 'reset') return req.socket.destroy();
      if (mode === 'hang') return;
      const asked = /\/tx\/([0-9a-f]{64})(\/status)?$/.exec(req.url!)?.[1];
      if (mode === 'lag' && req.method === 'GET' && asked && lagging.has(asked))
        return res.writeHead(404).end('Transaction not found');
      if (mode === 'down') return res.writeHead(502).end('Bad Gateway');
      if (isPost && mode === 'post-down') {
        state.mode = 'down';
        return res.writeHead(503).end('Service Unavailable');
      }
      const answer = await fetch(`${upstream}${req.url}`, {
        method: req.method!,
        headers: { 'content-type': req.headers['content-type'] ?? 'text/plain' },
        ...(req.method === 'POST' ? { body: Buffer.concat(chunks) } : {}),
      });
      const text = await answer.text();
      if (isPost && answer.ok) {
        state.posts++;
        if (mode === 'lag') lagging.add(text.trim());
        if (mode === 'drop' || mode === 'lag') return req.socket.destroy();
        if (mode === 'delay') await new Promise((resolve) => setTimeout(resolve, TIMEOUT_MS * 3));
        if (mode === 'swallow') {
          state.mode = 'down';
          return res.writeHead(502).end('Bad Gateway');
        }
      }
      res
        .writeHead(answer.status, {
          'content-type': answer.headers.get('content-type') ?? 'text/plain',
        })
        .end(text);
    })().catch(() => req.socket.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    state,
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

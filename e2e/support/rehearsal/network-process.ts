// The network of the signet rehearsal, one process of its own (`node --import tsx` this file): the
// devnet in its network-only mode (`npm run devnet -- serve`, apps/server/src/devnet/serve.ts),
// the four exchanges' public tickers (apps/server/test/price-feeds.ts), and in front of the chain a
// proxy the product reaches it through, which can lose one broadcast's answer or refuse every
// connection for a while, as a real service does. A control port moves the exchanges' price and
// the proxy's behaviour. Prints one JSON line with its addresses, then serves until SIGTERM.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { serveNetwork } from '../../../apps/server/src/devnet/serve';
import { startFakeFeed, type FakeFeed } from '../../../apps/server/test/price-feeds';

const [dataDir, unitTo, startUsd = '95000'] = process.argv.slice(2);
if (!dataDir || !unitTo)
  throw new Error('usage: network-process.ts <data dir> <UNIT premine address> [start price]');

const network = await serveNetwork({
  dataDir,
  host: '127.0.0.1',
  port: 0,
  blockIntervalMs: 0,
  unitTo,
});
const feeds: FakeFeed[] = [];
for (const kind of ['mempool', 'kraken', 'coinbase', 'bitstamp'] as const)
  feeds.push(await startFakeFeed(kind, { answer: 'price', usd: startUsd }));

/** What the proxy does: pass everything, or lose the answer of the next accepted broadcast. */
const proxyState = { dropNextPost: false, dropped: 0, outages: 0 };
/** Answers that are the connection's, not the resource's: the proxy's own connection decides. */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'content-length']);

const proxy = http.createServer((req, res) => {
  void (async () => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const headers: Record<string, string> = {};
    for (const name of ['content-type', 'accept', 'origin'])
      if (typeof req.headers[name] === 'string') headers[name] = req.headers[name];
    const answer = await fetch(`${network.url}${req.url}`, {
      method: req.method!,
      headers,
      ...(req.method === 'POST' ? { body: Buffer.concat(chunks) } : {}),
    });
    const body = Buffer.from(await answer.arrayBuffer());
    if (
      req.method === 'POST' &&
      /\/tx$/.test(req.url ?? '') &&
      answer.ok &&
      proxyState.dropNextPost
    ) {
      // The network took the transaction; its answer never reaches the product.
      proxyState.dropNextPost = false;
      proxyState.dropped++;
      req.socket.destroy();
      return;
    }
    const out: Record<string, string> = {};
    answer.headers.forEach((value, name) => {
      if (!HOP_BY_HOP.has(name) && name !== 'content-encoding') out[name] = value;
    });
    res.writeHead(answer.status, out).end(body);
  })().catch(() => req.socket.destroy());
});
await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
const proxyPort = (proxy.address() as AddressInfo).port;

/** Refuses every connection for `ms` (the listening socket closed), then listens again. */
function outage(ms: number): void {
  proxyState.outages++;
  proxy.close();
  proxy.closeAllConnections();
  setTimeout(() => proxy.listen(proxyPort, '127.0.0.1'), ms);
}

const control = http.createServer((req, res) => {
  void (async () => {
    let body = '';
    for await (const chunk of req) body += String(chunk);
    const input = (body ? JSON.parse(body) : {}) as { usd?: string; ms?: number };
    switch (`${req.method} ${req.url}`) {
      case 'POST /price':
        for (const feed of feeds) feed.behave({ answer: 'price', usd: String(input.usd) });
        break;
      case 'POST /drop-next-post':
        proxyState.dropNextPost = true;
        break;
      case 'POST /outage':
        outage(Number(input.ms));
        break;
      case 'GET /state':
        break;
      default:
        res.writeHead(404).end();
        return;
    }
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(proxyState));
  })().catch((error: unknown) => res.writeHead(500).end(String(error)));
});
await new Promise<void>((resolve) => control.listen(0, '127.0.0.1', resolve));

console.log(
  JSON.stringify({
    network: network.url,
    proxy: `http://127.0.0.1:${proxyPort}`,
    control: `http://127.0.0.1:${(control.address() as AddressInfo).port}`,
    feeds: feeds.map((feed) => feed.entry),
  }),
);

let stopping = false;
const stop = () => {
  if (stopping) return;
  stopping = true;
  setTimeout(() => process.exit(1), 5_000).unref();
  proxy.closeAllConnections();
  proxy.close();
  control.close();
  void Promise.all(feeds.map((feed) => feed.close()))
    .then(() => network.close())
    .finally(() => process.exit(0));
};
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
// The test that started this process is gone (its end of stdin closed): stop too.
process.stdin.once('end', stop);
process.stdin.resume();

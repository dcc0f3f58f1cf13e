// The guardian's chain reader against a local HTTP server: unknown transactions are absent, every
// read gives up at its time-out, and an answer not in esplora's shape is an error, not a fact.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { HttpChainView } from './chain-view';

const TXID = 'ab'.repeat(32);
let server: http.Server | null = null;

async function serve(handler: http.RequestListener): Promise<string> {
  server = http.createServer(handler);
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server!.address() as AddressInfo).port}`;
}

afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
  server = null;
});

describe('the chain view over HTTP', () => {
  it('reads outputs and spentness; an unknown transaction is absent and unspent', async () => {
    const url = await serve((req, res) => {
      if (req.url === `/esplora/tx/${TXID}`)
        return res.end(
          JSON.stringify({
            txid: TXID,
            vout: [{ scriptpubkey: '5120' + '11'.repeat(32), value: 5 }],
          }),
        );
      if (req.url === `/esplora/tx/${TXID}/outspend/0`) return res.end('{"spent":true}');
      res.writeHead(404).end('Transaction not found');
    });
    const chain = new HttpChainView({ esplora: `${url}/esplora`, app: url });
    expect(await chain.txOutputs(TXID)).toMatchObject([{ value: 5n, address: null }]);
    expect(await chain.spent(TXID, 0)).toBe(true);
    expect(await chain.txOutputs('cd'.repeat(32))).toBeNull();
    expect(await chain.spent('cd'.repeat(32), 0)).toBe(false);
  });

  it('gives up on a read that hangs at its time-out, and refuses an answer of another shape', async () => {
    const url = await serve((req, res) => {
      if (req.url?.startsWith('/hang')) return; // never answers
      res.end(JSON.stringify({ txid: TXID, vout: [{ value: 'five' }] }));
    });
    const hanging = new HttpChainView({
      esplora: `${url}/hang`,
      app: `${url}/hang`,
      timeoutMs: 300,
    });
    const started = Date.now();
    await expect(hanging.txOutputs(TXID)).rejects.toThrow();
    await expect(hanging.thresholdHash(100, 1)).rejects.toThrow();
    expect(Date.now() - started).toBeLessThan(2_000);
    const garbled = new HttpChainView({ esplora: url, app: url });
    await expect(garbled.txOutputs(TXID)).rejects.toThrow('esplora /tx: unexpected answer');
  });
});

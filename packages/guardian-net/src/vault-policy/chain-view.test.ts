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
  it('reads outputs, who spent one, and a whole transaction; an unknown one is absent and unspent', async () => {
    const SPENDER = 'ef'.repeat(32);
    const url = await serve((req, res) => {
      if (req.url === `/esplora/tx/${TXID}`)
        return res.end(
          JSON.stringify({
            txid: TXID,
            status: { confirmed: false },
            vin: [
              {
                txid: SPENDER,
                vout: 1,
                prevout: { scriptpubkey: '0014' + '22'.repeat(20), value: 9 },
              },
            ],
            vout: [{ scriptpubkey: '5120' + '11'.repeat(32), value: 5 }],
          }),
        );
      if (req.url === `/esplora/tx/${TXID}/hex`) return res.end('0200beef');
      if (req.url === `/esplora/tx/${TXID}/outspend/0`)
        return res.end(JSON.stringify({ spent: true, txid: SPENDER, vin: 0 }));
      if (req.url === `/esplora/tx/${TXID}/outspend/1`) return res.end('{"spent":false}');
      res.writeHead(404).end('Transaction not found');
    });
    const chain = new HttpChainView({ esplora: `${url}/esplora`, app: url });
    expect(await chain.txOutputs(TXID)).toMatchObject([{ value: 5n, address: null }]);
    expect(await chain.spentBy(TXID, 0)).toBe(SPENDER);
    expect(await chain.spentBy(TXID, 1)).toBeNull();
    expect(await chain.transaction(TXID)).toEqual({
      hex: '0200beef',
      confirmed: false,
      prevouts: [{ script: expect.any(Uint8Array), amount: 9n }],
    });
    expect(await chain.txOutputs('cd'.repeat(32))).toBeNull();
    expect(await chain.spentBy('cd'.repeat(32), 0)).toBeNull();
    expect(await chain.transaction('cd'.repeat(32))).toBeNull();
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
    await expect(hanging.thresholdHashes(100, 1)).rejects.toThrow();
    expect(Date.now() - started).toBeLessThan(2_000);
    const garbled = new HttpChainView({ esplora: url, app: url });
    await expect(garbled.txOutputs(TXID)).rejects.toThrow('esplora /tx: unexpected answer');
    await expect(garbled.transaction(TXID)).rejects.toThrow('esplora /tx: unexpected answer');
  });
});

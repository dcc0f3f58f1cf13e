// The page's runes reads through the server (RUNES_API=ord) are bounded: one ord read per address
// every few seconds, and at most a few addresses at once, past which the answer is 503 at once.
import { describe, expect, it } from 'vitest';
import Fastify from 'fastify';
import { p2wpkh, TEST_NETWORK } from '@scure/btc-signer';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import type { UnitOutputDto } from '@unit/protocol';
import { CHAIN_UNAVAILABLE_MESSAGE, ChainUnavailableError, type Chain } from '../src/chain/port';
import { MAX_INDEXER_READS, registerIndexerProxy } from '../src/http/indexer-proxy';

const address = () =>
  p2wpkh(secp256k1.getPublicKey(secp256k1.utils.randomSecretKey(), true), TEST_NETWORK).address!;

describe('the indexer proxy', () => {
  it('reads ord once per address in a short while, and refuses past its reads in flight', async () => {
    const release: (() => void)[] = [];
    let reads = 0;
    let held = true;
    // A chain whose indexer answers only when the test says so: the reads stay in flight.
    const chain = {
      unitOutputs: () =>
        new Promise<UnitOutputDto[]>((resolve) => {
          reads += 1;
          if (held) release.push(() => resolve([]));
          else resolve([]);
        }),
      paymentUtxos: async () => [],
    } as unknown as Chain;
    const app = Fastify();
    registerIndexerProxy(app, chain, TEST_NETWORK);
    const first = address();
    const pending = [
      app.inject(`/api/indexer/address/${first}/outputs`),
      app.inject(`/api/indexer/address/${first}/outputs`),
    ];
    for (let i = 1; i < MAX_INDEXER_READS; i++)
      pending.push(app.inject(`/api/indexer/address/${address()}/outputs`));
    await new Promise((resolve) => setTimeout(resolve, 50));
    // The same address twice made one read.
    expect(reads).toBe(MAX_INDEXER_READS);
    const busy = await app.inject(`/api/indexer/address/${address()}/outputs`);
    expect(busy.statusCode).toBe(503);
    expect(busy.json()).toMatchObject({ code: 'rate_limited' });
    held = false;
    for (const done of release) done();
    for (const answer of await Promise.all(pending)) expect(answer.statusCode).toBe(200);
    const again = await app.inject(`/api/indexer/address/${address()}/outputs`);
    expect(again.statusCode).toBe(200);
    await app.close();
  });

  it('forgets its answers on a block, and says a network that is down as every route says it', async () => {
    let held = 0;
    let down = false;
    // A whole UNIT output: the route's answer is written by the route table's schema.
    const output = { txid: 'ab'.repeat(32), vout: 1, script_hex: '5120' + 'cd'.repeat(32), btc_amount: 10_000, spent: false }; // prettier-ignore
    const chain = {
      unitOutputs: async () => {
        if (down) throw new ChainUnavailableError('/ord/address/x could not be reached');
        return [{ ...output, unit_amount: held }];
      },
      paymentUtxos: async () => [],
    } as unknown as Chain;
    const app = Fastify();
    const indexer = registerIndexerProxy(app, chain, TEST_NETWORK);
    const wallet = address();
    const read = () => app.inject(`/api/indexer/address/${wallet}/outputs`);
    expect((await read()).json()).toEqual([{ ...output, unit_amount: 0 }]);
    // A block confirms the UNIT: within the cache's few seconds the old answer still stands,
    // until the block is heard of.
    held = 30_000;
    expect((await read()).json()).toEqual([{ ...output, unit_amount: 0 }]);
    indexer.forget();
    expect((await read()).json()).toEqual([{ ...output, unit_amount: 30_000 }]);
    down = true;
    indexer.forget();
    const refused = await read();
    expect(refused.statusCode).toBe(503);
    expect(refused.json()).toEqual({ error: CHAIN_UNAVAILABLE_MESSAGE, code: 'chain_unavailable' });
    await app.close();
  });
});

// One set of Chain port cases, run against both adapters: DevnetChain calling the devnet directly,
// and EsploraChain over HTTP against the devnet's own esplora/mempool/ordinals/runes routes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import Fastify, { type FastifyInstance } from 'fastify';
import { hex } from '@scure/base';
import { encodeRunestone, parseRuneId } from '@unit/bitcoin';
import { BroadcastError, type Chain } from '../../src/chain/port';
import { DevnetChain } from '../../src/devnet/devnet-chain';
import { EsploraChain } from '../../src/chain/esplora';
import { registerDevnetRoutes } from '../../src/devnet/http';
import { ALICE, BOB, openTestDevnet, signedSpend, TREASURY, type Devnet } from './fixtures';

interface Harness {
  chain: Chain;
  devnet: Devnet;
  close(): Promise<void>;
}

async function devnetHarness(): Promise<Harness> {
  const { devnet, store } = await openTestDevnet();
  return {
    chain: new DevnetChain(devnet),
    devnet,
    close: async () => {
      await store.close();
      store.cleanup();
    },
  };
}

async function esploraHarness(): Promise<Harness> {
  const { devnet, store } = await openTestDevnet();
  const app: FastifyInstance = Fastify();
  await registerDevnetRoutes(app, devnet, { network: 'devnet' });
  const base = await app.listen({ port: 0, host: '127.0.0.1' });
  return {
    chain: new EsploraChain({
      esploraUrl: `${base}/esplora`,
      mempoolUrl: `${base}/mempool`,
      ordinalsUrl: `${base}/ordinals`,
      runesUrl: `${base}/runes/`,
      network: 'devnet',
      pollMs: 20,
    }),
    devnet,
    close: async () => {
      await app.close();
      await store.close();
      store.cleanup();
    },
  };
}

describe.each([
  ['DevnetChain', devnetHarness],
  ['EsploraChain over the devnet routes', esploraHarness],
])('Chain contract: %s', (_name, open) => {
  let h: Harness;
  beforeAll(async () => {
    h = await open();
  });
  afterAll(async () => {
    await h.close();
  });

  it('reports the tip height and hash', async () => {
    const tip = await h.chain.tip();
    const own = await h.devnet.tip();
    expect(tip).toEqual({ height: own.height, hash: own.hash });
    expect(tip.hash).toMatch(/^[0-9a-f]{64}$/);
  });

  it('lists unconfirmed and confirmed UTXOs with their status', async () => {
    const txid = await h.devnet.fund(ALICE.address, 70_000n);
    const pending = await h.chain.utxos(ALICE.address);
    expect(pending).toEqual([
      { txid, vout: expect.any(Number), value: 70_000, status: { confirmed: false } },
    ]);
    await h.devnet.mine(1);
    const tip = await h.chain.tip();
    const [confirmed] = await h.chain.utxos(ALICE.address);
    expect(confirmed!.status).toMatchObject({
      confirmed: true,
      block_height: tip.height,
      block_hash: tip.hash,
    });
    expect(await h.chain.txStatus(txid)).toMatchObject({
      confirmed: true,
      block_height: tip.height,
    });
    const stats = await h.chain.addressStats(ALICE.address);
    expect(stats.chain_stats.funded_txo_sum - stats.chain_stats.spent_txo_sum).toBe(70_000);
  });

  it('returns raw hex and outputs of a transaction, null when unknown', async () => {
    const txid = await h.devnet.fund(BOB.address, 30_000n);
    const raw = await h.chain.txHex(txid);
    expect(raw).toBe(await h.devnet.txHex(txid));
    const vout = (await h.devnet.getTx(txid))!.outputs.findIndex((o) => o.address === BOB.address);
    expect(await h.chain.output(txid, vout)).toEqual({
      txid,
      vout,
      value: 30_000,
      script_hex: hex.encode(BOB.script),
      address: BOB.address,
      unit_amount: 0,
      spent: false,
      status: { confirmed: false },
    });
    const unknown = 'cd'.repeat(32);
    expect(await h.chain.txHex(unknown)).toBeNull();
    expect(await h.chain.txStatus(unknown)).toBeNull();
    expect(await h.chain.output(unknown, 0)).toBeNull();
  });

  it('reports the UNIT on outputs and keeps rune outputs out of payment UTXOs', async () => {
    const [treasury] = await h.chain.unitOutputs(TREASURY.trAddress);
    expect(treasury!.unit_amount).toBeGreaterThan(0);
    expect((await h.chain.output(treasury!.txid, treasury!.vout))!.unit_amount).toBe(
      treasury!.unit_amount,
    );
    expect(await h.chain.paymentUtxos(TREASURY.trAddress)).toEqual([]);
    expect((await h.chain.utxos(TREASURY.trAddress)).map((u) => u.txid)).toContain(treasury!.txid);
  });

  it('broadcasts a signed transaction and refuses a bad one with the node reason', async () => {
    const txid = await h.devnet.fund(ALICE.address, 50_000n);
    const vout = (await h.devnet.getTx(txid))!.outputs.findIndex(
      (o) => o.address === ALICE.address,
    );
    const coin = { txid, vout, value: 50_000n, key: ALICE };
    const dust = signedSpend([coin], [{ script: BOB.script, amount: 100n }]);
    await expect(h.chain.broadcast(dust.hex)).rejects.toThrow(new BroadcastError('dust'));
    const good = signedSpend([coin], [{ script: BOB.script, amount: 49_000n }]);
    expect(await h.chain.broadcast(good.hex)).toBe(good.id);
    const conflict = signedSpend([coin], [{ script: BOB.script, amount: 48_000n }]);
    await expect(h.chain.broadcast(conflict.hex)).rejects.toThrow(
      new BroadcastError('txn-mempool-conflict'),
    );
  });

  it('marks an output spent once a transaction spends it', async () => {
    const [treasury] = await h.chain.unitOutputs(TREASURY.trAddress);
    const fee = await h.devnet.fund(ALICE.address, 40_000n);
    const feeVout = (await h.devnet.getTx(fee))!.outputs.findIndex(
      (o) => o.address === ALICE.address,
    );
    const tx = signedSpend(
      [
        {
          txid: treasury!.txid,
          vout: treasury!.vout,
          value: BigInt(treasury!.btc_amount),
          key: TREASURY,
          taproot: true,
        },
        { txid: fee, vout: feeVout, value: 40_000n, key: ALICE },
      ],
      [
        { script: TREASURY.trScript, amount: 10_000n },
        { script: ALICE.script, amount: 10_000n },
        {
          script: encodeRunestone({
            edicts: [{ id: parseRuneId(h.devnet.unitRuneId), amount: 500n, output: 1 }],
            pointer: 0,
          }),
          amount: 0n,
        },
        { script: ALICE.script, amount: 29_000n },
      ],
    );
    await h.chain.broadcast(tx.hex);
    expect((await h.chain.output(treasury!.txid, treasury!.vout))!.spent).toBe(true);
    const alice = await h.chain.unitOutputs(ALICE.address);
    expect(alice).toContainEqual({
      txid: tx.id,
      vout: 1,
      script_hex: hex.encode(ALICE.script),
      btc_amount: 10_000,
      unit_amount: 500,
      spent: false,
    });
  });

  it('recommends fees of at least 1 sat/vB in descending order', async () => {
    const fees = await h.chain.fees();
    expect(fees.minimumFee).toBeGreaterThanOrEqual(1);
    expect(fees.fastestFee).toBeGreaterThanOrEqual(fees.halfHourFee);
    expect(fees.halfHourFee).toBeGreaterThanOrEqual(fees.hourFee);
    expect(fees.hourFee).toBeGreaterThanOrEqual(fees.economyFee);
    expect(fees.economyFee).toBeGreaterThanOrEqual(fees.minimumFee);
  });

  it('tells listeners about a new block', async () => {
    const seen = new Promise<{ height: number; hash: string }>((resolve) => {
      const off = h.chain.onBlock((tip) => {
        off();
        resolve(tip);
      });
    });
    // EsploraChain polls: give it one poll to learn the current tip before the block arrives.
    await new Promise((resolve) => setTimeout(resolve, 60));
    const [hash] = await h.devnet.mine(1);
    expect(await seen).toEqual({ height: (await h.devnet.tip()).height, hash });
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import Fastify, { type FastifyInstance } from 'fastify';
import { hex } from '@scure/base';
import { registerDevnetRoutes } from '../../src/devnet/http';
import { ALICE, BOB, openTestDevnet, signedSpend, TREASURY, type Devnet } from './fixtures';

let app: FastifyInstance;
let devnet: Devnet;
let close: () => Promise<void>;

beforeAll(async () => {
  const opened = await openTestDevnet();
  devnet = opened.devnet;
  app = Fastify();
  // A route of the server core beside the devnet's: its JSON parsing must stay untouched.
  app.post('/core-echo', async (request) => request.body);
  await registerDevnetRoutes(app, devnet, { network: 'devnet' });
  await app.ready();
  close = async () => {
    await app.close();
    await opened.store.close();
    opened.store.cleanup();
  };
});
afterAll(async () => {
  await close();
});

const get = (url: string) => app.inject({ method: 'GET', url });
const postJson = (url: string, body: unknown) =>
  app.inject({
    method: 'POST',
    url,
    headers: { 'content-type': 'application/json' },
    payload: JSON.stringify(body),
  });

async function aliceCoin(sats: bigint) {
  const txid = await devnet.fund(ALICE.address, sats);
  const vout = (await devnet.getTx(txid))!.outputs.findIndex((o) => o.address === ALICE.address);
  return { txid, vout, value: sats, key: ALICE };
}

describe('esplora routes', () => {
  it('answers the tip height and hash as text', async () => {
    const tip = await devnet.tip();
    const height = await get('/esplora/blocks/tip/height');
    expect(height.statusCode).toBe(200);
    expect(height.body).toBe(String(tip.height));
    expect((await get('/esplora/blocks/tip/hash')).body).toBe(tip.hash);
    expect((await get(`/esplora/block-height/${tip.height}`)).body).toBe(tip.hash);
    expect((await get('/esplora/block-height/99999')).statusCode).toBe(404);
  });

  it('answers address stats with chain and mempool sums', async () => {
    const coin = await aliceCoin(25_000n);
    const res = await get(`/esplora/address/${ALICE.address}`);
    expect(res.json()).toMatchObject({
      address: ALICE.address,
      chain_stats: {
        funded_txo_count: 0,
        funded_txo_sum: 0,
        spent_txo_count: 0,
        spent_txo_sum: 0,
        tx_count: 0,
      },
      mempool_stats: {
        funded_txo_count: 1,
        funded_txo_sum: 25_000,
        spent_txo_count: 0,
        spent_txo_sum: 0,
        tx_count: 1,
      },
    });
    const utxos = (await get(`/esplora/address/${ALICE.address}/utxo`)).json();
    expect(utxos).toEqual([
      { txid: coin.txid, vout: coin.vout, value: 25_000, status: { confirmed: false } },
    ]);
    expect((await get('/esplora/address/not-an-address')).statusCode).toBe(400);
  });

  it('answers transactions in esplora JSON, hex and status, and lists them per address', async () => {
    const coin = await aliceCoin(26_000n);
    await devnet.mine(1);
    const tip = await devnet.tip();
    const tx = (await get(`/esplora/tx/${coin.txid}`)).json();
    expect(tx).toMatchObject({
      txid: coin.txid,
      version: 2,
      locktime: 0,
      fee: expect.any(Number),
      weight: expect.any(Number),
      size: expect.any(Number),
      status: {
        confirmed: true,
        block_height: tip.height,
        block_hash: tip.hash,
        block_time: tip.time,
      },
    });
    expect(tx.vin[0]).toMatchObject({
      is_coinbase: false,
      prevout: { scriptpubkey_type: 'v0_p2wpkh' },
    });
    expect(tx.vout[coin.vout]).toEqual({
      scriptpubkey: expect.any(String),
      scriptpubkey_asm: `OP_0 OP_PUSHBYTES_20 ${hex.encode(ALICE.script.subarray(2))}`,
      scriptpubkey_type: 'v0_p2wpkh',
      scriptpubkey_address: ALICE.address,
      value: 26_000,
    });
    expect((await get(`/esplora/tx/${coin.txid}/hex`)).body).toBe(await devnet.txHex(coin.txid));
    expect((await get(`/esplora/tx/${coin.txid}/status`)).json()).toEqual(tx.status);
    expect((await get(`/esplora/tx/${coin.txid}/outspend/${coin.vout}`)).json()).toEqual({
      spent: false,
    });
    const txs = (await get(`/esplora/address/${ALICE.address}/txs`)).json() as { txid: string }[];
    expect(txs.map((t) => t.txid)).toContain(coin.txid);
    const missing = await get(`/esplora/tx/${'ef'.repeat(32)}`);
    expect(missing.statusCode).toBe(404);
    expect(missing.body).toBe('Transaction not found');
  });

  it('takes raw hex on POST /tx and answers the txid, or 400 with the reason', async () => {
    const coin = await aliceCoin(27_000n);
    const good = signedSpend([coin], [{ script: BOB.script, amount: 26_000n }]);
    const ok = await app.inject({
      method: 'POST',
      url: '/esplora/tx',
      headers: { 'content-type': 'text/plain' },
      payload: good.hex,
    });
    expect(ok.statusCode).toBe(200);
    expect(ok.body).toBe(good.id);
    const again = await app.inject({ method: 'POST', url: '/esplora/tx', payload: good.hex });
    expect(again.statusCode).toBe(400);
    expect(again.body).toBe(
      'sendrawtransaction RPC error: {"code":-26,"message":"txn-already-in-mempool"}',
    );
    const garbage = await app.inject({ method: 'POST', url: '/esplora/tx', payload: 'nothex' });
    expect(garbage.statusCode).toBe(400);
    expect(garbage.body).toContain('TX decode failed');
  });
});

describe('mempool, ordinals and runes routes', () => {
  it('derives recommended fees from what waits in the mempool', async () => {
    await devnet.mine(1);
    const empty = (await get('/mempool/devnet/api/v1/fees/recommended')).json();
    expect(empty).toEqual({
      fastestFee: 3,
      halfHourFee: 2,
      hourFee: 1,
      economyFee: 1,
      minimumFee: 1,
    });
    const coin = await aliceCoin(100_000n);
    // ~110 vB paying 20,000 sats: far above the faucet's rate.
    await devnet.broadcast(signedSpend([coin], [{ script: BOB.script, amount: 80_000n }]).hex);
    const busy = (await get('/mempool/devnet/api/v1/fees/recommended')).json();
    expect(busy.fastestFee).toBeGreaterThan(100);
    // The cheapest waiting transaction is the faucet payment itself.
    const faucetTx = (await devnet.getTx(coin.txid))!;
    expect(busy.economyFee).toBe(Math.ceil(faucetTx.fee / faucetTx.vsize));
    expect(busy.minimumFee).toBe(1);
    // Playing the network for a signet instance: the same estimate under signet's path.
    expect((await get('/mempool/signet/api/v1/fees/recommended')).json()).toEqual(busy);
    expect((await get('/mempool/testnet/api/v1/fees/recommended')).statusCode).toBe(404);
  });

  it('lists payment UTXOs without runes and UNIT outputs per address', async () => {
    const [unit] = (await get(`/runes/address/${TREASURY.trAddress}/outputs`)).json();
    expect(unit).toEqual({
      txid: expect.stringMatching(/^[0-9a-f]{64}$/),
      vout: expect.any(Number),
      script_hex: expect.any(String),
      btc_amount: 10_000,
      unit_amount: expect.any(Number),
      spent: false,
    });
    expect((await get(`/ordinals/address/${TREASURY.trAddress}/utxos`)).json()).toEqual([]);
    await aliceCoin(28_000n);
    const payments = (await get(`/ordinals/address/${ALICE.address}/utxos`)).json() as {
      value: number;
    }[];
    expect(payments.map((p) => p.value)).toContain(28_000);
  });
});

describe('explorer pages', () => {
  it('renders a transaction with its inputs, outputs, runes and confirmations', async () => {
    const [unit] = await devnet.unitOutputs(TREASURY.trAddress);
    const res = await get(`/explorer/tx/${unit!.txid}`);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toContain('text/html');
    expect(res.body).toContain('Confirmed in block 1');
    expect(res.body).toMatch(/\d+ confirmations?/);
    expect(res.body).toContain('1000000000.00 UNIT');
    expect(res.body).toContain(`/explorer/address/${TREASURY.trAddress}`);
    expect((await get(`/explorer/tx/${'01'.repeat(32)}`)).statusCode).toBe(404);
  });

  it('renders an address page and escapes what it shows', async () => {
    const res = await get(`/explorer/address/${ALICE.address}`);
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain(ALICE.address);
    expect(res.body).toContain('Unspent outputs');
    const hostile = await get(
      `/explorer/address/${encodeURIComponent('<script>alert(1)</script>')}`,
    );
    expect(hostile.statusCode).toBe(400);
    expect(hostile.body).not.toContain('<script>');
  });
});

describe('devnet-only routes', () => {
  it('keeps its text body parsing to its own routes', async () => {
    const res = await postJson('/core-echo', { ok: 1 });
    expect(res.json()).toEqual({ ok: 1 });
  });

  it('funds a tb1 address from the faucet', async () => {
    const res = await postJson('/api/devnet/faucet', { address: BOB.address, sats: 100_000_000 });
    expect(res.statusCode).toBe(200);
    const { txid } = res.json() as { txid: string };
    expect(await devnet.txStatus(txid)).toEqual({ confirmed: false });
    // A Taproot address too (62 characters): an operator funds the treasury so (README).
    const taproot = await postJson('/api/devnet/faucet', { address: BOB.trAddress, sats: 50_000 });
    expect(taproot.statusCode).toBe(200);
  });

  it('refuses a non-tb1 address and amounts outside the faucet range', async () => {
    const mainnet = await postJson('/api/devnet/faucet', {
      address: 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq',
      sats: 1000,
    });
    expect(mainnet.statusCode).toBe(400);
    expect(mainnet.json()).toEqual({ error: 'address must be a tb1 address', code: 'bad_request' });
    const tooMuch = await postJson('/api/devnet/faucet', {
      address: BOB.address,
      sats: 100 * 100_000_000 + 1,
    });
    expect(tooMuch.json()).toEqual({ error: 'sats must be at most 100 BTC', code: 'bad_request' });
    const fraction = await postJson('/api/devnet/faucet', { address: BOB.address, sats: 1.5 });
    expect(fraction.statusCode).toBe(400);
  });

  it('mines the requested blocks', async () => {
    const before = (await devnet.tip()).height;
    const res = await postJson('/api/devnet/mine', { blocks: 3 });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      height: before + 3,
      hashes: [expect.any(String), expect.any(String), expect.any(String)],
    });
    expect((await postJson('/api/devnet/mine', { blocks: 0 })).statusCode).toBe(400);
  });
});

// Runes and ordinals through ord's JSON API: the devnet answers ord's routes in ord's shapes, and
// EsploraChain with RUNES_API=ord reads UNIT outputs and payment outputs through them, agreeing
// with the devnet's own books; the adapter also reads the literal examples of ord's API guide.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import Fastify, { type FastifyInstance } from 'fastify';
import { hex } from '@scure/base';
import { encodeRunestone } from '@unit/bitcoin';
import { EsploraChain } from '../../src/chain/esplora';
import { OrdIndexer, ordScriptHex } from '../../src/chain/ord';
import { scriptAsm } from '../../src/chain/script-asm';
import { registerDevnetRoutes } from '../../src/devnet/http';
import { ALICE, openTestDevnet, signedSpend, TREASURY, type Devnet } from './fixtures';

describe('ord routes of the devnet, read through EsploraChain with RUNES_API=ord', () => {
  let app: FastifyInstance;
  let base: string;
  let devnet: Devnet;
  let chain: EsploraChain;
  let close: () => Promise<void>;
  let unitPayment: { txid: string; vout: number };

  beforeAll(async () => {
    const opened = await openTestDevnet();
    devnet = opened.devnet;
    app = Fastify();
    await registerDevnetRoutes(app, devnet, { network: 'devnet' });
    base = await app.listen({ port: 0, host: '127.0.0.1' });
    chain = new EsploraChain({
      esploraUrl: `${base}/esplora`,
      mempoolUrl: `${base}/mempool`,
      ordinalsUrl: `${base}/ord`,
      runesUrl: `${base}/ord`,
      network: 'devnet',
      runesApi: 'ord',
      unitRuneId: devnet.unitRuneId,
      pollMs: 20,
    });
    close = async () => {
      await app.close();
      await opened.store.close();
      opened.store.cleanup();
    };
    // Alice gets sats, and 25.00 UNIT from a treasury output (the treasury signs with its key).
    const funding = await devnet.fund(ALICE.address, 100_000n);
    await devnet.mine(1);
    const [treasuryOutput] = await devnet.unitOutputs(TREASURY.trAddress);
    const spend = signedSpend(
      [
        {
          txid: treasuryOutput!.txid,
          vout: treasuryOutput!.vout,
          value: BigInt(treasuryOutput!.btc_amount),
          key: TREASURY,
          taproot: true,
        },
        {
          txid: funding,
          vout: (await devnet.getTx(funding))!.outputs.findIndex(
            (o) => o.address === ALICE.address,
          ),
          value: 100_000n,
          key: ALICE,
        },
      ],
      [
        { script: TREASURY.trScript, amount: 10_000n },
        { script: ALICE.script, amount: 10_000n },
        {
          script: encodeRunestone({
            edicts: [{ id: { block: 1n, tx: 1 }, amount: 2_500n, output: 1 }],
            pointer: 0,
          }),
          amount: 0n,
        },
        { script: ALICE.script, amount: 88_000n },
      ],
    );
    const txid = await devnet.broadcast(spend.hex);
    unitPayment = { txid, vout: 1 };
  });
  afterAll(() => close());

  const ord = async (path: string, accept = 'application/json') =>
    fetch(`${base}/ord${path}`, { headers: { accept } });

  it('answers /rune/<rune> by id and by name, JSON only', async () => {
    const byId = (await (await ord(`/rune/${devnet.unitRuneId}`)).json()) as {
      id: string;
      entry: { spaced_rune: string; divisibility: number; premine: number; symbol: string };
      mintable: boolean;
      parent: null;
    };
    expect(byId).toMatchObject({
      id: '1:1',
      mintable: false,
      parent: null,
      entry: {
        spaced_rune: 'UNIT•RUNE•TOKEN',
        divisibility: 2,
        symbol: '¤',
        premine: 100_000_000_000,
      },
    });
    expect(await (await ord('/rune/UNITRUNETOKEN')).json()).toEqual(byId);
    expect(await (await ord(`/rune/${encodeURIComponent('UNIT•RUNE•TOKEN')}`)).json()).toEqual(
      byId,
    );
    expect((await ord('/rune/OTHERRUNE')).status).toBe(404);
    expect((await ord('/rune/1:1', 'text/html')).status).toBe(406);
  });

  it('keeps UNIT out of ord until it is mined, as ord indexes blocks only', async () => {
    expect(await chain.unitOutputs(ALICE.address)).toEqual([]);
    const pending = (await (await ord(`/output/${unitPayment.txid}:1`)).json()) as {
      indexed: boolean;
      runes: Record<string, unknown>;
      confirmations: number;
    };
    expect(pending).toMatchObject({ indexed: false, runes: {}, confirmations: 0 });
    // An output ord has not indexed is never offered to pay with.
    expect(await chain.paymentUtxos(ALICE.address)).toEqual([]);
    await devnet.mine(1);
  });

  it('lists UNIT outputs as the devnet books them', async () => {
    const viaOrd = await chain.unitOutputs(ALICE.address);
    expect(viaOrd).toEqual(await devnet.unitOutputs(ALICE.address));
    expect(viaOrd).toEqual([
      {
        txid: unitPayment.txid,
        vout: 1,
        script_hex: hex.encode(ALICE.script),
        btc_amount: 10_000,
        unit_amount: 2_500,
        spent: false,
      },
    ]);
    const treasury = await chain.unitOutputs(TREASURY.trAddress);
    expect(treasury).toEqual(await devnet.unitOutputs(TREASURY.trAddress));
    expect((await chain.output(unitPayment.txid, 1))?.unit_amount).toBe(2_500);
  });

  it('offers as payment outputs only those without runes', async () => {
    const payment = await chain.paymentUtxos(ALICE.address);
    expect(payment.map((u) => `${u.txid}:${u.vout}`)).toEqual([`${unitPayment.txid}:3`]);
    expect(payment).toEqual(await devnet.paymentUtxos(ALICE.address));
  });

  it('answers /address/<address> in ord’s shape', async () => {
    const info = (await (await ord(`/address/${ALICE.address}`)).json()) as {
      outputs: string[];
      sat_balance: number;
      runes_balances: [string, string, string][];
      inscriptions: string[];
    };
    expect(info).toEqual({
      outputs: [`${unitPayment.txid}:1`, `${unitPayment.txid}:3`],
      inscriptions: [],
      sat_balance: 98_000,
      runes_balances: [['UNIT•RUNE•TOKEN', '25', '¤']],
    });
    expect((await ord('/address/not-an-address')).status).toBe(400);
  });

  it('answers the fee route under signet’s and mainnet’s paths, with CORS on chain routes', async () => {
    const own = await (await fetch(`${base}/mempool/devnet/api/v1/fees/recommended`)).json();
    for (const path of ['/mempool/signet', '/mempool']) {
      const response = await fetch(`${base}${path}/api/v1/fees/recommended`);
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual(own);
    }
    const signet = new EsploraChain({
      esploraUrl: `${base}/esplora`,
      mempoolUrl: `${base}/mempool`,
      ordinalsUrl: `${base}/ord`,
      runesUrl: `${base}/ord`,
      network: 'signet',
    });
    expect(await signet.fees()).toEqual(own);
    for (const path of [
      '/esplora/blocks/tip/height',
      '/mempool/signet/api/v1/fees/recommended',
      `/ord/rune/${devnet.unitRuneId}`,
    ]) {
      const response = await fetch(`${base}${path}`, {
        headers: { origin: 'https://other.example', accept: 'application/json' },
      });
      expect(response.headers.get('access-control-allow-origin')).toBe('*');
    }
    const faucet = await fetch(`${base}/api/devnet/mine`, {
      method: 'POST',
      headers: { origin: 'https://other.example' },
    });
    expect(faucet.headers.get('access-control-allow-origin')).toBeNull();
  });
});

describe('OrdIndexer against the examples of ord’s API guide', () => {
  // docs/src/guides/api.md of ordinals/ord: /output answers with the script as assembly there.
  const guideOutput = {
    address: 'bc1pz4kvfpurqc2hwgrq0nwtfve2lfxvdpfcdpzc6ujchyr3ztj6gd9sfr6ayf',
    confirmations: 6,
    indexed: true,
    inscriptions: [],
    outpoint: 'bc4c30829a9564c0d58e6287195622b53ced54a25711d1b86be7cd3a70ef61ed:0',
    runes: { 'UNCOMMON•GOODS': { amount: 1234, divisibility: 0, symbol: '⧉' } },
    sat_ranges: null,
    script_pubkey:
      'OP_PUSHNUM_1 OP_PUSHBYTES_32 156cc4878306157720607cdcb4b32afa4cc6853868458d7258b907112e5a434b',
    spent: false,
    transaction: 'bc4c30829a9564c0d58e6287195622b53ced54a25711d1b86be7cd3a70ef61ed',
    value: 10000,
  };
  const guideRune = {
    entry: {
      block: 1,
      burned: 139,
      divisibility: 0,
      etching: '0'.repeat(64),
      mints: 33891693,
      number: 0,
      premine: 0,
      spaced_rune: 'UNCOMMON•GOODS',
      symbol: '⧉',
      terms: { amount: 1, cap: 1e38, height: [840000, 1050000], offset: [null, null] },
      timestamp: 0,
      turbo: true,
    },
    id: '1:0',
    mintable: true,
    parent: null,
  };
  let app: FastifyInstance;
  let base: string;
  const seen: string[] = [];

  beforeAll(async () => {
    app = Fastify();
    app.addHook('onRequest', async (req) => {
      seen.push(`${req.headers.accept} ${req.url}`);
    });
    app.get('/rune/:rune', async (req, reply) =>
      (req.params as { rune: string }).rune === '1:0' ? guideRune : reply.code(404).send(),
    );
    app.get('/address/:address', async () => ({
      outputs: [guideOutput.outpoint],
      inscriptions: [],
      sat_balance: 10000,
      runes_balances: [['UNCOMMON•GOODS', '1234', '⧉']],
    }));
    app.get('/output/:outpoint', async () => guideOutput);
    base = await app.listen({ port: 0, host: '127.0.0.1' });
  });
  afterAll(() => app.close());

  it('reads the rune, the address and its outputs, with the script from assembly', async () => {
    const indexer = new OrdIndexer({ url: base, unitRuneId: '1:0' });
    expect(await indexer.unitOutputs(guideOutput.address)).toEqual([
      {
        txid: guideOutput.transaction,
        vout: 0,
        script_hex: '5120156cc4878306157720607cdcb4b32afa4cc6853868458d7258b907112e5a434b',
        btc_amount: 10000,
        unit_amount: 1234,
        spent: false,
      },
    ]);
    expect(seen.every((line) => line.startsWith('application/json '))).toBe(true);
    await expect(new OrdIndexer({ url: base, unitRuneId: '9:9' }).unitOutputs('x')).rejects.toThrow(
      /does not know the UNIT rune/,
    );
  });

  it('turns assembly back into the script it came from', () => {
    for (const script of [
      '0014751e76e8199196d454941c45d1b3a323f1433bd6',
      '76a914751e76e8199196d454941c45d1b3a323f1433bd688ac',
      hex.encode(encodeRunestone({ edicts: [], pointer: 3 })),
      `6a4c50${'ab'.repeat(80)}`,
    ])
      expect(ordScriptHex(scriptAsm(hex.decode(script)))).toBe(script);
    expect(ordScriptHex('0014751e76e8199196d454941c45d1b3a323f1433bd6')).toBe(
      '0014751e76e8199196d454941c45d1b3a323f1433bd6',
    );
    expect(() => ordScriptHex('OP_BOGUS')).toThrow();
  });
});

// The devnet answers esplora's routes in esplora's shapes (Blockstream esplora API.md): script
// assembly on every transaction, fee estimates, mempool statistics and newest entries, the block
// list, every output's spender and the raw bytes, read over HTTP as any esplora client would.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import Fastify, { type FastifyInstance } from 'fastify';
import { hex } from '@scure/base';
import { p2sh, p2wpkh, TEST_NETWORK, Transaction } from '@scure/btc-signer';
import { sha256 } from '@noble/hashes/sha2.js';
import { encodeRunestone } from '@unit/bitcoin';
import { innerScriptsAsm, scriptAsm } from '../../src/chain/script-asm';
import { registerDevnetRoutes } from '../../src/devnet/http';
import { ALICE, BOB, openTestDevnet, signedSpend, type Devnet } from './fixtures';

describe('scriptAsm, as rust-bitcoin prints it for esplora', () => {
  it('names opcodes and pushes as esplora shows them', () => {
    const h20 = '89abcdefabbaabbaabbaabbaabbaabbaabbaabba';
    expect(scriptAsm(hex.decode(`76a914${h20}88ac`))).toBe(
      `OP_DUP OP_HASH160 OP_PUSHBYTES_20 ${h20} OP_EQUALVERIFY OP_CHECKSIG`,
    );
    expect(scriptAsm(hex.decode(`0014${h20}`))).toBe(`OP_0 OP_PUSHBYTES_20 ${h20}`);
    expect(scriptAsm(hex.decode(`a914${h20}87`))).toBe(
      `OP_HASH160 OP_PUSHBYTES_20 ${h20} OP_EQUAL`,
    );
    expect(
      scriptAsm(Uint8Array.of(0x4f, 0x51, 0x60, 0xb0, 0xb1, 0xb2, 0xb9, 0xba, 0xbb, 0xfe, 0xff)),
    ).toBe(
      'OP_PUSHNUM_NEG1 OP_PUSHNUM_1 OP_PUSHNUM_16 OP_NOP1 OP_CLTV OP_CSV OP_NOP10 OP_CHECKSIGADD OP_RETURN_187 OP_RETURN_254 OP_INVALIDOPCODE',
    );
    expect(scriptAsm(Uint8Array.of(0x4c, 0x02, 0xab, 0xcd, 0x4c, 0x00))).toBe(
      'OP_PUSHDATA1 abcd OP_PUSHDATA1',
    );
    expect(scriptAsm(new Uint8Array())).toBe('');
  });

  it('marks a truncated script as rust-bitcoin does', () => {
    expect(scriptAsm(Uint8Array.of(0x76, 0x05, 0x01))).toBe(
      'OP_DUP OP_PUSHBYTES_5 <push past end>',
    );
    expect(scriptAsm(Uint8Array.of(0x76, 0x4d, 0x01))).toBe('OP_DUP<unexpected end>');
  });
});

describe('esplora routes of the devnet', () => {
  let app: FastifyInstance;
  let base: string;
  let devnet: Devnet;
  let close: () => Promise<void>;
  let paid: { txid: string; vout: number };
  let runestoneTxid: string;

  beforeAll(async () => {
    const opened = await openTestDevnet();
    devnet = opened.devnet;
    app = Fastify();
    await registerDevnetRoutes(app, devnet, { network: 'devnet' });
    base = `${await app.listen({ port: 0, host: '127.0.0.1' })}/esplora`;
    close = async () => {
      await app.close();
      await opened.store.close();
      opened.store.cleanup();
    };
    const txid = await devnet.fund(ALICE.address, 200_000n);
    await devnet.mine(1);
    const vout = (await devnet.getTx(txid))!.outputs.findIndex((o) => o.address === ALICE.address);
    paid = { txid, vout };
    const tx = signedSpend(
      [{ txid, vout, value: 200_000n, key: ALICE }],
      [
        { script: BOB.trScript, amount: 150_000n },
        { script: encodeRunestone({ edicts: [], pointer: 0 }), amount: 0n },
      ],
    );
    runestoneTxid = await devnet.broadcast(tx.hex);
  });
  afterAll(() => close());

  const get = async (path: string) => {
    const response = await fetch(`${base}${path}`);
    expect(response.status).toBe(200);
    return response;
  };
  const json = async <T>(path: string): Promise<T> => (await get(path)).json() as Promise<T>;

  it('gives every input and output its script assembly', async () => {
    interface Tx {
      vin: { scriptsig: string; scriptsig_asm: string; prevout: { scriptpubkey_asm: string } }[];
      vout: { scriptpubkey: string; scriptpubkey_asm: string }[];
    }
    const tx = await json<Tx>(`/tx/${runestoneTxid}`);
    expect(tx.vin[0]!.scriptsig).toBe('');
    expect(tx.vin[0]!.scriptsig_asm).toBe('');
    expect(tx.vin[0]!.prevout.scriptpubkey_asm).toBe(
      `OP_0 OP_PUSHBYTES_20 ${hex.encode(ALICE.script.subarray(2))}`,
    );
    expect(tx.vout[0]!.scriptpubkey_asm).toBe(
      `OP_PUSHNUM_1 OP_PUSHBYTES_32 ${hex.encode(BOB.trScript.subarray(2))}`,
    );
    // The runestone: OP_RETURN OP_13 and one push (pointer tag 22, output 0).
    expect(tx.vout[1]!.scriptpubkey_asm).toBe('OP_RETURN OP_PUSHNUM_13 OP_PUSHBYTES_2 1600');
    // A coinbase's scriptSig: the BIP-34 height push, then the devnet's 4-byte tag.
    const txids = await devnet.addressTxids(devnet.faucetAddress);
    const coinbases = [];
    for (const txid of txids) {
      const found = (await devnet.getTx(txid))!;
      if (found.inputs[0]!.is_coinbase && found.status.confirmed) coinbases.push(found);
    }
    const coinbase = coinbases.find((c) => c.status.confirmed && c.status.block_height === 2)!;
    const answer = await json<Tx & { vin: { is_coinbase: boolean }[] }>(`/tx/${coinbase.txid}`);
    expect(answer.vin[0]!.is_coinbase).toBe(true);
    expect(answer.vin[0]!.scriptsig_asm).toBe('OP_PUSHBYTES_1 02 OP_PUSHBYTES_4 756e6974');
  });

  it('answers GET /fee-estimates with a rate for each of esplora\u2019s targets', async () => {
    const estimates = await json<Record<string, number>>('/fee-estimates');
    for (const target of ['2', '3', '4', '5', '6', '10', '20', '25', '144', '504', '1008'])
      expect(typeof estimates[target]).toBe('number');
    const fees = await devnet.fees();
    expect(estimates['1']).toBe(fees.fastestFee);
    expect(estimates['1008']).toBe(fees.economyFee);
    // Later targets never ask more than earlier ones.
    const rates = Object.entries(estimates)
      .sort(([a], [b]) => Number(a) - Number(b))
      .map(([, rate]) => rate);
    expect([...rates].sort((a, b) => b - a)).toEqual(rates);
  });

  it('answers GET /mempool, /mempool/txids and /mempool/recent', async () => {
    const waiting = (await devnet.getTx(runestoneTxid))!;
    const stats = await json<{
      count: number;
      vsize: number;
      total_fee: number;
      fee_histogram: [number, number][];
    }>('/mempool');
    expect(stats).toEqual({
      count: 1,
      vsize: waiting.vsize,
      total_fee: waiting.fee,
      fee_histogram: [[waiting.fee / (waiting.weight / 4), Math.ceil(waiting.weight / 4)]],
    });
    expect(await json('/mempool/txids')).toEqual([runestoneTxid]);
    expect(await json('/mempool/recent')).toEqual([
      { txid: runestoneTxid, fee: waiting.fee, vsize: waiting.vsize, value: 150_000 },
    ]);
  });

  it('answers GET /blocks and /blocks/:start_height, ten at a time, whose headers hash to their ids', async () => {
    interface Block {
      id: string;
      height: number;
      version: number;
      timestamp: number;
      bits: number;
      nonce: number;
      merkle_root: string;
      previousblockhash: string | null;
      tx_count: number;
      size: number;
      weight: number;
      mediantime: number;
      difficulty: number;
    }
    await devnet.mine(10);
    const tip = await devnet.tip();
    const blocks = await json<Block[]>('/blocks');
    expect(blocks.map((b) => b.height)).toEqual(
      Array.from({ length: 10 }, (_, i) => tip.height - i),
    );
    expect(blocks[0]!.id).toBe(tip.hash);
    for (let i = 0; i + 1 < blocks.length; i++)
      expect(blocks[i]!.previousblockhash).toBe(blocks[i + 1]!.id);
    for (const block of blocks) {
      // The 80-byte header from the answer's own fields hashes to its id.
      const header = new Uint8Array(80);
      const view = new DataView(header.buffer);
      view.setUint32(0, block.version, true);
      header.set(hex.decode(block.previousblockhash!).reverse(), 4);
      header.set(hex.decode(block.merkle_root).reverse(), 36);
      view.setUint32(68, block.timestamp, true);
      view.setUint32(72, block.bits, true);
      view.setUint32(76, block.nonce, true);
      expect(hex.encode(sha256(sha256(header)).reverse())).toBe(block.id);
      expect(block.mediantime).toBeLessThanOrEqual(block.timestamp);
    }
    const withPayment = blocks.find((b) => b.tx_count === 2)!;
    const raw = (await devnet.txHex(runestoneTxid))!;
    expect(withPayment.size).toBeGreaterThan(80 + 1 + raw.length / 2);
    const genesis = await json<Block[]>('/blocks/0');
    expect(genesis).toHaveLength(1);
    expect(genesis[0]!.previousblockhash).toBeNull();
    expect(genesis[0]!.difficulty).toBeCloseTo(4.656542373906925e-10, 20);
    expect((await fetch(`${base}/blocks/tip`)).status).toBe(400);
  });

  it('answers GET /tx/:txid/outspends for every output, and /tx/:txid/raw as bytes', async () => {
    const outspends = await json<{ spent: boolean; txid?: string; vin?: number }[]>(
      `/tx/${paid.txid}/outspends`,
    );
    const funding = (await devnet.getTx(paid.txid))!;
    expect(outspends).toHaveLength(funding.outputs.length);
    expect(outspends[paid.vout]).toMatchObject({ spent: true, txid: runestoneTxid, vin: 0 });
    expect(outspends.filter((o) => !o.spent)).toHaveLength(funding.outputs.length - 1);
    const raw = await get(`/tx/${runestoneTxid}/raw`);
    expect(raw.headers.get('content-type')).toBe('application/octet-stream');
    expect(hex.encode(new Uint8Array(await raw.arrayBuffer()))).toBe(
      await devnet.txHex(runestoneTxid),
    );
    expect((await fetch(`${base}/tx/${'0'.repeat(64)}/outspends`)).status).toBe(404);
    expect((await fetch(`${base}/tx/${'0'.repeat(64)}/raw`)).status).toBe(404);
  });

  it('names the redeem script of a P2SH-wrapped spend, and leaves the inner fields out otherwise', async () => {
    const wrapped = p2sh(p2wpkh(ALICE.pubkey, TEST_NETWORK), TEST_NETWORK);
    const funding = await devnet.fund(wrapped.address!, 50_000n);
    const vout = (await devnet.getTx(funding))!.outputs.findIndex(
      (o) => o.address === wrapped.address,
    );
    const tx = new Transaction();
    tx.addInput({
      txid: funding,
      index: vout,
      witnessUtxo: { script: wrapped.script, amount: 50_000n },
      redeemScript: wrapped.redeemScript!,
    });
    tx.addOutput({ script: BOB.script, amount: 49_000n });
    tx.sign(ALICE.secret);
    tx.finalize();
    const txid = await devnet.broadcast(tx.hex);
    const answer = await json<{ vin: Record<string, unknown>[] }>(`/tx/${txid}`);
    expect(answer.vin[0]).toMatchObject({
      scriptsig_asm: `OP_PUSHBYTES_22 ${hex.encode(wrapped.redeemScript!)}`,
      inner_redeemscript_asm: `OP_0 OP_PUSHBYTES_20 ${hex.encode(ALICE.script.subarray(2))}`,
    });
    expect(answer.vin[0]).not.toHaveProperty('inner_witnessscript_asm');
    const plain = await json<{ vin: Record<string, unknown>[] }>(`/tx/${runestoneTxid}`);
    expect(plain.vin[0]).not.toHaveProperty('inner_redeemscript_asm');
    expect(plain.vin[0]).not.toHaveProperty('inner_witnessscript_asm');
    // A P2WSH spend: its witness script is the last witness item.
    const witnessScript = Uint8Array.of(0x51);
    const wsh = hex.decode(`0020${'11'.repeat(32)}`);
    expect(innerScriptsAsm(wsh, new Uint8Array(), [Uint8Array.of(1), witnessScript])).toEqual({
      inner_witnessscript_asm: 'OP_PUSHNUM_1',
    });
  });
});

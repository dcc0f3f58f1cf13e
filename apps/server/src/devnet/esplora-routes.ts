// Esplora's remaining read routes on the devnet (Blockstream esplora API.md): fee estimates, the
// mempool's statistics and newest entries, the block list, every output's spender and the raw
// transaction bytes, in esplora's shapes so any esplora client can read the devnet.
import type { FastifyInstance, FastifyReply } from 'fastify';
import { hex } from '@scure/base';
import type { Devnet } from './devnet';
import { feeEstimates } from './fees';

const TXID = /^[0-9a-fA-F]{64}$/;

const textError = (reply: FastifyReply, status: number, text: string) =>
  reply.code(status).type('text/plain; charset=utf-8').send(text);

/** Registers the routes under `prefix` (the devnet's `/esplora`). */
export function registerEsploraReads(scope: FastifyInstance, devnet: Devnet, prefix: string): void {
  scope.get(`${prefix}/fee-estimates`, async () => feeEstimates(await devnet.fees()));
  scope.get(`${prefix}/mempool`, async () => devnet.mempoolStats());
  scope.get(`${prefix}/mempool/txids`, async () => devnet.mempoolTxids());
  scope.get(`${prefix}/mempool/recent`, async () => devnet.mempoolRecent());
  scope.get(`${prefix}/blocks`, async () => devnet.esploraBlocks());
  scope.get<{ Params: { start: string } }>(`${prefix}/blocks/:start`, async (req, reply) => {
    if (!/^\d{1,10}$/.test(req.params.start)) return textError(reply, 400, 'Invalid height');
    return devnet.esploraBlocks(Number(req.params.start));
  });
  scope.get<{ Params: { txid: string } }>(`${prefix}/tx/:txid/outspends`, async (req, reply) => {
    if (!TXID.test(req.params.txid)) return textError(reply, 400, 'Invalid hex string');
    const outspends = await devnet.outspends(req.params.txid.toLowerCase());
    return outspends ?? textError(reply, 404, 'Transaction not found');
  });
  scope.get<{ Params: { txid: string } }>(`${prefix}/tx/:txid/raw`, async (req, reply) => {
    if (!TXID.test(req.params.txid)) return textError(reply, 400, 'Invalid hex string');
    const raw = await devnet.txHex(req.params.txid.toLowerCase());
    if (raw === null) return textError(reply, 404, 'Transaction not found');
    return reply.type('application/octet-stream').send(Buffer.from(hex.decode(raw)));
  });
}

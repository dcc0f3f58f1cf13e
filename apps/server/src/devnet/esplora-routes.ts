// Esplora's routes on the devnet: the tip, addresses, transactions and the broadcast the app uses,
// then its remaining read routes (Blockstream esplora API.md): fee estimates, the
// mempool's statistics and newest entries, the block list, every output's spender and the raw
// transaction bytes, in esplora's shapes so any esplora client can read the devnet.
import type { FastifyInstance, FastifyReply } from 'fastify';
import { hex } from '@scure/base';
import { BroadcastError } from '../chain/port';
import type { Devnet } from './devnet';
import { feeEstimates } from './fees';

export const TXID = /^[0-9a-fA-F]{64}$/;
const MAX_BROADCAST_BODY = 1_048_576;

/** Esplora answers plain-text errors. */
export const textError = (reply: FastifyReply, status: number, text: string) =>
  reply.code(status).type('text/plain; charset=utf-8').send(text);

/** Esplora's wording of a refused broadcast, which EsploraChain reads back into a BroadcastError. */
const esploraRejectText = (reason: string): string =>
  `sendrawtransaction RPC error: ${JSON.stringify({ code: -26, message: reason })}`;

/**
 * Esplora's routes under `prefix` (the devnet's `/esplora`): the tip, addresses, transactions,
 * their spenders, the broadcast, and the remaining reads below.
 */
export function registerEsploraRoutes(
  scope: FastifyInstance,
  devnet: Devnet,
  prefix: string,
  validAddress: (address: string) => boolean,
): void {
  scope.get(`${prefix}/blocks/tip/height`, async (_req, reply) =>
    reply.type('text/plain').send(String((await devnet.tip()).height)),
  );
  scope.get(`${prefix}/blocks/tip/hash`, async (_req, reply) =>
    reply.type('text/plain').send((await devnet.tip()).hash),
  );
  scope.get<{ Params: { height: string } }>(
    `${prefix}/block-height/:height`,
    async (req, reply) => {
      const hash = /^\d+$/.test(req.params.height)
        ? await devnet.blockHashAt(Number(req.params.height))
        : null;
      return hash === null
        ? textError(reply, 404, 'Block not found')
        : reply.type('text/plain').send(hash);
    },
  );

  scope.get<{ Params: { hash: string } }>(`${prefix}/block/:hash/txids`, async (req, reply) => {
    const txids = /^[0-9a-f]{64}$/.test(req.params.hash)
      ? await devnet.blockTxids(req.params.hash)
      : null;
    return txids === null ? textError(reply, 404, 'Block not found') : txids;
  });

  scope.get<{ Params: { address: string } }>(`${prefix}/address/:address`, async (req, reply) => {
    if (!validAddress(req.params.address)) return textError(reply, 400, 'Invalid Bitcoin address');
    return devnet.addressStats(req.params.address);
  });
  scope.get<{ Params: { address: string } }>(
    `${prefix}/address/:address/utxo`,
    async (req, reply) => {
      if (!validAddress(req.params.address))
        return textError(reply, 400, 'Invalid Bitcoin address');
      return devnet.utxos(req.params.address);
    },
  );
  scope.get<{ Params: { address: string } }>(
    `${prefix}/address/:address/txs`,
    async (req, reply) => {
      if (!validAddress(req.params.address))
        return textError(reply, 400, 'Invalid Bitcoin address');
      const txids = await devnet.addressTxids(req.params.address);
      // Esplora's page: every mempool transaction, then the newest 25 confirmed ones.
      const txs = [];
      let confirmed = 0;
      for (const txid of txids) {
        const tx = await devnet.esploraTx(txid);
        if (!tx) continue;
        if (tx.status.confirmed && ++confirmed > 25) break;
        txs.push(tx);
      }
      return txs;
    },
  );

  scope.get<{ Params: { txid: string } }>(`${prefix}/tx/:txid`, async (req, reply) => {
    if (!TXID.test(req.params.txid)) return textError(reply, 400, 'Invalid hex string');
    const tx = await devnet.esploraTx(req.params.txid.toLowerCase());
    return tx ?? textError(reply, 404, 'Transaction not found');
  });
  scope.get<{ Params: { txid: string } }>(`${prefix}/tx/:txid/hex`, async (req, reply) => {
    if (!TXID.test(req.params.txid)) return textError(reply, 400, 'Invalid hex string');
    const hex = await devnet.txHex(req.params.txid.toLowerCase());
    return hex === null
      ? textError(reply, 404, 'Transaction not found')
      : reply.type('text/plain').send(hex);
  });
  scope.get<{ Params: { txid: string } }>(`${prefix}/tx/:txid/status`, async (req, reply) => {
    if (!TXID.test(req.params.txid)) return textError(reply, 400, 'Invalid hex string');
    const status = await devnet.txStatus(req.params.txid.toLowerCase());
    return status ?? textError(reply, 404, 'Transaction not found');
  });
  scope.get<{ Params: { txid: string; vout: string } }>(
    `${prefix}/tx/:txid/outspend/:vout`,
    async (req, reply) => {
      if (!TXID.test(req.params.txid) || !/^\d+$/.test(req.params.vout))
        return textError(reply, 400, 'Invalid request');
      const outspend = await devnet.outspend(
        req.params.txid.toLowerCase(),
        Number(req.params.vout),
      );
      return outspend ?? textError(reply, 404, 'Transaction not found');
    },
  );
  registerEsploraReads(scope, devnet, prefix);
  // A standard transaction weighs at most 400,000 WU, so its hex is under 800,000 characters.
  scope.post<{ Body: string | undefined }>(
    `${prefix}/tx`,
    { bodyLimit: MAX_BROADCAST_BODY },
    async (req, reply) => {
      try {
        const txid = await devnet.broadcast(String(req.body ?? ''));
        return reply.type('text/plain').send(txid);
      } catch (error) {
        if (error instanceof BroadcastError)
          return textError(reply, 400, esploraRejectText(error.message));
        throw error;
      }
    },
  );
}

/** Registers the routes under `prefix` (the devnet's `/esplora`). */
function registerEsploraReads(scope: FastifyInstance, devnet: Devnet, prefix: string): void {
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

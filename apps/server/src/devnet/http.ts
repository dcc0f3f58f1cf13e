// The devnet's HTTP face: the esplora, mempool.space, ordinals and runes routes the web app and the
// EsploraChain adapter call (the same paths real services answer), the explorer pages, and the
// devnet-only faucet and mine endpoints.
import type { FastifyInstance, FastifyReply } from 'fastify';
import * as z from 'zod';
import type { ApiErrorDto, Network } from '@unit/protocol';
import { BroadcastError } from '../chain/port';
import type { Devnet } from './devnet';
import { renderAddressPage, renderReplacedPage, renderTxPage } from './explorer';
import { DUST_LIMIT_SATS } from './policy';

export interface DevnetRoutesOptions {
  /** The network name in mempool.space paths: /mempool/{network}/api/v1/fees/recommended. */
  network: Network;
}

const TXID = /^[0-9a-fA-F]{64}$/;
/** SPEC §5: a testnet address is tb1 bech32 of 39 to 59 characters. */
const TESTNET_ADDRESS = /^tb1[02-9ac-hj-np-z]{36,56}$/;
const MAX_FAUCET_SATS = 100 * 100_000_000;
const MAX_MINE_BLOCKS = 100;
const MAX_BROADCAST_BODY = 1_048_576;

const faucetBody = z.object({
  address: z.string().regex(TESTNET_ADDRESS, 'address must be a tb1 address'),
  sats: z
    .number()
    .int()
    .min(Number(DUST_LIMIT_SATS), `sats must be at least ${DUST_LIMIT_SATS}`)
    .max(MAX_FAUCET_SATS, 'sats must be at most 100 BTC'),
});
const mineBody = z.object({ blocks: z.number().int().min(1).max(MAX_MINE_BLOCKS).default(1) });

const apiError = (reply: FastifyReply, status: number, error: string, code: ApiErrorDto['code']) =>
  reply.code(status).send({ error, code } satisfies ApiErrorDto);

/** Esplora answers plain-text errors. */
const textError = (reply: FastifyReply, status: number, text: string) =>
  reply.code(status).type('text/plain; charset=utf-8').send(text);

/** Esplora's wording of a refused broadcast, which EsploraChain reads back into a BroadcastError. */
export const esploraRejectText = (reason: string): string =>
  `sendrawtransaction RPC error: ${JSON.stringify({ code: -26, message: reason })}`;

export async function registerDevnetRoutes(
  app: FastifyInstance,
  devnet: Devnet,
  options: DevnetRoutesOptions,
): Promise<void> {
  await app.register(async (scope) => {
    // Raw hex arrives as text/plain, or with no useful content type from curl; read every body
    // as text in this scope only, and parse JSON ourselves where a JSON body is expected.
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { parseAs: 'string' }, (_req, body, done) => done(null, body));

    const validAddress = (address: string): boolean => devnet.scriptOf(address) !== null;

    // ---- esplora ----
    scope.get('/esplora/blocks/tip/height', async (_req, reply) =>
      reply.type('text/plain').send(String((await devnet.tip()).height)),
    );
    scope.get('/esplora/blocks/tip/hash', async (_req, reply) =>
      reply.type('text/plain').send((await devnet.tip()).hash),
    );
    scope.get<{ Params: { height: string } }>(
      '/esplora/block-height/:height',
      async (req, reply) => {
        const hash = /^\d+$/.test(req.params.height)
          ? await devnet.blockHashAt(Number(req.params.height))
          : null;
        return hash === null
          ? textError(reply, 404, 'Block not found')
          : reply.type('text/plain').send(hash);
      },
    );

    scope.get<{ Params: { hash: string } }>('/esplora/block/:hash/txids', async (req, reply) => {
      const txids = /^[0-9a-f]{64}$/.test(req.params.hash)
        ? await devnet.blockTxids(req.params.hash)
        : null;
      return txids === null ? textError(reply, 404, 'Block not found') : txids;
    });

    scope.get<{ Params: { address: string } }>('/esplora/address/:address', async (req, reply) => {
      if (!validAddress(req.params.address))
        return textError(reply, 400, 'Invalid Bitcoin address');
      return devnet.addressStats(req.params.address);
    });
    scope.get<{ Params: { address: string } }>(
      '/esplora/address/:address/utxo',
      async (req, reply) => {
        if (!validAddress(req.params.address))
          return textError(reply, 400, 'Invalid Bitcoin address');
        return devnet.utxos(req.params.address);
      },
    );
    scope.get<{ Params: { address: string } }>(
      '/esplora/address/:address/txs',
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

    scope.get<{ Params: { txid: string } }>('/esplora/tx/:txid', async (req, reply) => {
      if (!TXID.test(req.params.txid)) return textError(reply, 400, 'Invalid hex string');
      const tx = await devnet.esploraTx(req.params.txid.toLowerCase());
      return tx ?? textError(reply, 404, 'Transaction not found');
    });
    scope.get<{ Params: { txid: string } }>('/esplora/tx/:txid/hex', async (req, reply) => {
      if (!TXID.test(req.params.txid)) return textError(reply, 400, 'Invalid hex string');
      const hex = await devnet.txHex(req.params.txid.toLowerCase());
      return hex === null
        ? textError(reply, 404, 'Transaction not found')
        : reply.type('text/plain').send(hex);
    });
    scope.get<{ Params: { txid: string } }>('/esplora/tx/:txid/status', async (req, reply) => {
      if (!TXID.test(req.params.txid)) return textError(reply, 400, 'Invalid hex string');
      const status = await devnet.txStatus(req.params.txid.toLowerCase());
      return status ?? textError(reply, 404, 'Transaction not found');
    });
    scope.get<{ Params: { txid: string; vout: string } }>(
      '/esplora/tx/:txid/outspend/:vout',
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
    // A standard transaction weighs at most 400,000 WU, so its hex is under 800,000 characters.
    scope.post<{ Body: string | undefined }>(
      '/esplora/tx',
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

    // ---- mempool.space fees (SPEC §7) ----
    scope.get(`/mempool/${options.network}/api/v1/fees/recommended`, async () => devnet.fees());

    // ---- ordinals and runes ----
    scope.get<{ Params: { address: string } }>(
      '/ordinals/address/:address/utxos',
      async (req, reply) => {
        if (!validAddress(req.params.address))
          return textError(reply, 400, 'Invalid Bitcoin address');
        return devnet.paymentUtxos(req.params.address);
      },
    );
    scope.get<{ Params: { address: string } }>(
      '/runes/address/:address/outputs',
      async (req, reply) => {
        if (!validAddress(req.params.address))
          return textError(reply, 400, 'Invalid Bitcoin address');
        return devnet.unitOutputs(req.params.address);
      },
    );

    // ---- explorer ----
    scope.get<{ Params: { txid: string } }>('/explorer/tx/:txid', async (req, reply) => {
      const tx = TXID.test(req.params.txid)
        ? await devnet.getTx(req.params.txid.toLowerCase())
        : null;
      if (!tx) {
        const txid = req.params.txid.toLowerCase();
        const replacedBy = TXID.test(txid) ? await devnet.replacedBy(txid) : null;
        if (replacedBy)
          return reply
            .type('text/html; charset=utf-8')
            .send(renderReplacedPage('/explorer', txid, replacedBy));
        return reply.code(404).type('text/plain; charset=utf-8').send('Transaction not found');
      }
      return reply.type('text/html; charset=utf-8').send(renderTxPage('/explorer', tx));
    });
    scope.get<{ Params: { address: string } }>('/explorer/address/:address', async (req, reply) => {
      const { address } = req.params;
      if (!validAddress(address))
        return reply.code(400).type('text/plain; charset=utf-8').send('Invalid Bitcoin address');
      // The newest 50 are enough for a page; the faucet's address gains a coinbase every block.
      const txids = (await devnet.addressTxids(address)).slice(0, 50);
      const txs = [];
      for (const txid of txids) {
        const status = await devnet.txStatus(txid);
        txs.push({ txid, ...(status ?? { confirmed: false }) });
      }
      const outputs = (await devnet.addressOutputs(address)).filter((o) => !o.spent);
      const html = renderAddressPage(
        '/explorer',
        address,
        await devnet.addressStats(address),
        txs,
        outputs,
        await devnet.unitOutputs(address),
      );
      return reply.type('text/html; charset=utf-8').send(html);
    });

    // ---- devnet only ----
    scope.post<{ Body: string | undefined }>('/api/devnet/faucet', async (req, reply) => {
      const parsed = faucetBody.safeParse(parseJson(req.body));
      if (!parsed.success)
        return apiError(
          reply,
          400,
          parsed.error.issues[0]?.message ?? 'bad request',
          'bad_request',
        );
      if (!validAddress(parsed.data.address))
        return apiError(reply, 400, 'address must be a tb1 address', 'bad_request');
      try {
        return { txid: await devnet.fund(parsed.data.address, parsed.data.sats) };
      } catch (error) {
        if (error instanceof BroadcastError)
          return apiError(reply, 400, error.message, 'broadcast_failed');
        throw error;
      }
    });
    scope.post<{ Body: string | undefined }>('/api/devnet/mine', async (req, reply) => {
      const parsed = mineBody.safeParse(req.body ? parseJson(req.body) : {});
      if (!parsed.success)
        return apiError(
          reply,
          400,
          `blocks must be an integer from 1 to ${MAX_MINE_BLOCKS}`,
          'bad_request',
        );
      const hashes = await devnet.mine(parsed.data.blocks);
      return { height: (await devnet.tip()).height, hashes };
    });
  });
}

function parseJson(body: string | undefined): unknown {
  try {
    return JSON.parse(body ?? '');
  } catch {
    return undefined;
  }
}

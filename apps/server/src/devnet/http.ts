// The devnet's HTTP face: the esplora, mempool.space, ordinals and runes routes the web app and the
// EsploraChain adapter call (the same paths real services answer), the explorer pages, and the
// devnet-only faucet and mine endpoints.
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { ApiErrorDto, Network } from '@unit/protocol';
import { API_ROUTES, DEVNET_MAX_MINE_BLOCKS } from '@unit/protocol/wire';
import { BroadcastError } from '../chain/port';
import type { Devnet } from './devnet';
import { registerEsploraRoutes, textError } from './esplora-routes';
import { registerExplorerRoutes } from './explorer-routes';
import { registerOrdRoutes } from './ord-routes';

export interface DevnetRoutesOptions {
  /** The network name in mempool.space paths: /mempool/{network}/api/v1/fees/recommended. */
  network: Network;
}

/** The routes another instance reads as its network's services: any page origin may read them. */
const CHAIN_ROUTES = /^\/(esplora|mempool|ordinals|runes|ord)\//;
// The devnet's controls are routes of the public table (@unit/protocol/wire): their paths and
// bodies come from it; the bodies arrive as text (this scope reads every body so) and are parsed here.
const { devnetFaucet, devnetChain, devnetMine } = API_ROUTES;

const apiError = (reply: FastifyReply, status: number, error: string, code: ApiErrorDto['code']) =>
  reply.code(status).send({ error, code } satisfies ApiErrorDto);

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

    // Playing the network for another instance: its web page reads these from its own origin.
    scope.addHook('onSend', async (req, reply, payload) => {
      if (CHAIN_ROUTES.test(req.url)) reply.header('access-control-allow-origin', '*');
      return payload;
    });

    registerEsploraRoutes(scope, devnet, '/esplora', validAddress);

    // ---- mempool.space fees (SPEC §7) ----
    // Under the devnet's own path, and under signet's and mainnet's (mutinynet reads signet's), so
    // an instance configured for those networks can take the devnet as its mempool service.
    const feePaths = new Set([`/mempool/${options.network}`, '/mempool/signet', '/mempool']);
    for (const path of feePaths)
      scope.get(`${path}/api/v1/fees/recommended`, async () => devnet.fees());

    // ---- ord's JSON API ----
    registerOrdRoutes(scope, devnet, '/ord');

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

    registerExplorerRoutes(scope, devnet, validAddress);

    // ---- devnet only ----
    scope.post<{ Body: string | undefined }>(devnetFaucet.path, async (req, reply) => {
      const parsed = devnetFaucet.body.safeParse(parseJson(req.body));
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
    // A chain service that is down, for the server's own guardian (the outage, end to end).
    scope.post<{ Body: string | undefined }>(devnetChain.path, async (req, reply) => {
      const parsed = devnetChain.body.safeParse(parseJson(req.body));
      if (!parsed.success)
        return apiError(reply, 400, 'available must be true or false', 'bad_request');
      devnet.chainAvailable = parsed.data.available;
      return { available: devnet.chainAvailable };
    });
    scope.post<{ Body: string | undefined }>(devnetMine.path, async (req, reply) => {
      const parsed = devnetMine.body.safeParse(req.body ? parseJson(req.body) : {});
      if (!parsed.success)
        return apiError(
          reply,
          400,
          `blocks must be an integer from 1 to ${DEVNET_MAX_MINE_BLOCKS}`,
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

// GET /guardian: the guardian's JSON-RPC over a WebSocket (rpc/json-rpc.ts), with its per-address
// socket and message limits, counted across instances when they share PostgreSQL.
import websocket from '@fastify/websocket';
import fp from 'fastify-plugin';
import type { Logger } from 'pino';
import type { Guardian } from '../cosign';
import type { HitCounter } from '../http/shared-rate-limits';
import { RpcSocketPolicy, serveJsonRpc, type RpcLimits, type RpcMethod } from '../rpc/json-rpc';

export interface GuardianSocketOptions {
  /** The guardian's methods as served (counted, announcing their vault changes). */
  methods: Record<string, RpcMethod<unknown>>;
  guardian: Pick<Guardian, 'disconnect'>;
  origins: string[];
  limits?: Partial<RpcLimits>;
  sharedHits: HitCounter | null;
  log: Logger;
}

export const guardianSocket = fp<GuardianSocketOptions>(
  async (app, { methods, guardian, origins, limits, sharedHits, log }) => {
    const policy = new RpcSocketPolicy(
      { origins, ...limits },
      sharedHits ? async (key, windowMs) => (await sharedHits.count(key, windowMs)).current : null,
    );
    await app.register(websocket, { options: { maxPayload: policy.limits.maxPayloadBytes } });
    app.get(
      '/guardian',
      {
        websocket: true,
        // Another site's page may not drive the guardian with its visitor's browser.
        preValidation: async (request, reply) => {
          if (!policy.originAllowed(request.headers.origin, request.headers.host))
            await reply.code(403).send({ error: 'Origin not allowed', code: 'bad_request' });
        },
      },
      (socket, request) =>
        serveJsonRpc(socket, methods, log, {
          address: request.ip,
          policy,
          onClose: (client) =>
            void guardian.disconnect(client).catch((err: unknown) => {
              log.error({ err }, 'releasing reservations failed');
            }),
        }),
    );
  },
  { name: 'unit-guardian-socket' },
);

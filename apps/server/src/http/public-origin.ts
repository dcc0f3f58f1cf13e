// The origin this server is reached at, for what must not follow a request's headers: sign-in
// challenges, OAuth redirect URIs, the same-origin check of cookie writes. PUBLIC_ORIGIN, or on a
// devnet without it the address the server is bound to (known only once it listens: PORT=0).
import type { FastifyInstance } from 'fastify';
import { publicOriginOf, type ServerConfig } from '../config';

export function publicOriginResolver(app: FastifyInstance, config: ServerConfig): () => string {
  if (config.publicOrigin) {
    const origin = config.publicOrigin;
    return () => origin;
  }
  return () => {
    const bound = app.server.address();
    return publicOriginOf(config, bound && typeof bound === 'object' ? bound.port : config.port);
  };
}

// The Fastify instance with this server's time-outs and body limit; the composition root (app.ts)
// registers the plugins and routes on it.
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import type { ServerConfig } from '../config';
import { requestLogging } from '../logger';

/** The largest /api body: every one is a small JSON object. */
const API_BODY_LIMIT = 64 * 1024;
const HEADERS_TIMEOUT_MS = 10_000;
/** Node's own default: an idle keep-alive connection is closed after 5 s. */
const KEEP_ALIVE_TIMEOUT_MS = 5_000;

export function createServer(config: ServerConfig, log: Logger): FastifyInstance {
  const { limits } = config;
  return Fastify({
    loggerInstance: log as FastifyBaseLogger,
    // Every /api body is a small JSON object; the esplora broadcast raises its own limit.
    bodyLimit: API_BODY_LIMIT,
    // A client must send its whole request in time: a body trickled a byte at a time is cut off
    // (Node answers 408 and closes), as is a connection silent for the idle time.
    requestTimeout: limits.requestTimeoutMs,
    connectionTimeout: limits.idleTimeoutMs,
    keepAliveTimeout: KEEP_ALIVE_TIMEOUT_MS,
    http: {
      headersTimeout: Math.min(HEADERS_TIMEOUT_MS, limits.requestTimeoutMs),
      requestTimeout: limits.requestTimeoutMs,
      // Node looks for requests past their time-outs this often (its default is 30 s).
      connectionsCheckingInterval: 1_000,
    },
    // Long-poll WebSocket clients must not hold a shutdown forever.
    forceCloseConnections: true,
    // Behind a load balancer request.ip is the client's, not the balancer's (TRUST_PROXY).
    ...(config.trustProxy ? { trustProxy: config.trustProxy } : {}),
    ...requestLogging(),
  });
}

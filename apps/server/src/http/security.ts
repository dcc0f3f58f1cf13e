// Security headers and write rate limits. The CSP allows only this origin's scripts and styles
// (the Vite build emits no inline script) and WebSocket connections back to it (the guardian).
import helmet from './precomputed-helmet';
import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance } from 'fastify';

/** Writes allowed per client address per minute unless configured otherwise. */
export const DEFAULT_WRITES_PER_MINUTE = 30;

/** Per-route config of write endpoints (`{config: WRITE_LIMIT}`): the plugin's limits apply. */
export const WRITE_LIMIT = { rateLimit: {} };

export async function installSecurity(
  app: FastifyInstance,
  options: { writeLimitPerMinute?: number } = {},
): Promise<void> {
  await app.register(helmet, {
    contentSecurityPolicy: {
      directives: {
        defaultSrc: ["'self'"],
        scriptSrc: ["'self'"],
        styleSrc: ["'self'", "'unsafe-inline'"],
        imgSrc: ["'self'", 'data:', 'https:'],
        fontSrc: ["'self'", 'data:'],
        // 'self' does not cover ws: in every browser; name the WebSocket schemes explicitly.
        connectSrc: ["'self'", 'ws:', 'wss:', 'https:'],
        objectSrc: ["'none'"],
        frameAncestors: ["'none'"],
        baseUri: ["'self'"],
        formAction: ["'self'"],
        upgradeInsecureRequests: null,
      },
    },
    // The app is reached over plain HTTP on loopback; HSTS would break that.
    hsts: false,
  });
  await app.register(rateLimit, {
    global: false,
    max: options.writeLimitPerMinute ?? DEFAULT_WRITES_PER_MINUTE,
    timeWindow: '1 minute',
  });
}

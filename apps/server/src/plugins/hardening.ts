// What every request passes through, registered before any route: the error handler, the metrics'
// request counting, and the security headers, origin checks and write limits (http/security.ts).
import fp from 'fastify-plugin';
import type { ServerConfig } from '../config';
import { installErrorHandling } from '../http/errors';
import type { createMetrics } from '../http/metrics';
import { installSecurity } from '../http/security';
import type { HitCounter } from '../http/shared-rate-limits';

export interface HardeningOptions {
  config: ServerConfig;
  metrics: ReturnType<typeof createMetrics>;
  /** Counted together in PostgreSQL when several instances share it; null counts in memory. */
  sharedHits: HitCounter | null;
  publicOrigin: () => string;
  writesPerMinute?: number;
  devnetWritesPerMinute?: number;
}

export const hardening = fp<HardeningOptions>(
  async (app, { config, metrics, sharedHits, publicOrigin, ...writes }) => {
    installErrorHandling(app);
    metrics?.instrument(app);
    await installSecurity(app, {
      writesPerMinute: writes.writesPerMinute ?? config.limits.writesPerMinute,
      devnetWritesPerMinute: writes.devnetWritesPerMinute ?? config.limits.devnetWritesPerMinute,
      services: config.services,
      listenHost: config.host,
      sharedLimits: sharedHits,
      publicOrigin,
    });
  },
  { name: 'unit-hardening' },
);

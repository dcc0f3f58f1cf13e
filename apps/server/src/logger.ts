// One pino logger for the server. Secrets never reach the log: the redaction list covers every
// place a key or token could appear (config, headers, request bodies).
import {
  LogController,
  type FastifyReply,
  type FastifyRequest,
  type FastifyServerOptions,
} from 'fastify';
import pino, { type Logger } from 'pino';
import type { ServerConfig } from './config';

export const REDACTED_PATHS = [
  'guardianKey',
  'telegramBotToken',
  'databaseUrl',
  'config.guardianKey',
  'config.telegramBotToken',
  'config.databaseUrl',
  'req.headers.authorization',
  'req.headers.cookie',
  '*.secret',
  '*.privateKey',
];

export function createLogger(level: ServerConfig['logLevel']): Logger {
  return pino({ level, redact: { paths: REDACTED_PATHS, censor: '[redacted]' } });
}

/** A request slower than this is logged at warn whatever the level: something is stalling. */
export const SLOW_REQUEST_MS = 500;

/**
 * Fastify's per-request log lines, quieter: its default (two info lines per request) cost more
 * than the answer on the hot routes. Slow requests are logged at warn, every request at debug
 * (LOG_LEVEL=debug); errors are logged by the error handler (http/errors.ts) and here.
 */
class QuietRequestLog extends LogController {
  override incomingRequest(): void {}

  override requestCompleted(
    error: Error | null | undefined,
    request: FastifyRequest,
    reply: FastifyReply,
  ): void {
    const ms = reply.elapsedTime;
    const level = reply.log.level;
    if (!error && ms < SLOW_REQUEST_MS && level !== 'debug' && level !== 'trace') return;
    const entry = { method: request.method, url: request.url, status: reply.statusCode, ms };
    if (error) reply.log.error({ ...entry, err: error }, 'request errored');
    else if (ms >= SLOW_REQUEST_MS) reply.log.warn(entry, 'slow request');
    else reply.log.debug(entry, 'request');
  }
}

/** Fastify options for the request log above (one controller per app). */
export function requestLogging(): Pick<FastifyServerOptions, 'logController'> {
  return { logController: new QuietRequestLog() };
}

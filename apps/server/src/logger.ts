// One pino logger for the server. Secrets never reach the log: the redaction list covers every
// place a key or token could appear (config, headers, request bodies).
import {
  LogController,
  type FastifyBaseLogger,
  type FastifyReply,
  type FastifyRequest,
  type FastifyServerOptions,
} from 'fastify';
import pino, { type Bindings, type ChildLoggerOptions, type Logger } from 'pino';
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

type Method = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace';

/** A pino level's number; 'silent' (and anything unknown) is above every method's. */
const levelValue = (level: string): number =>
  (pino.levels.values as Record<string, number | undefined>)[level] ?? Infinity;

/**
 * A request's logger, whose pino child (with the request's id) is made when the request first logs
 * a line at an enabled level. Fastify asks for a child logger for every request, and making one
 * (its bindings serialised) cost a hot route a tenth of its whole answer, for the few requests that
 * log anything at all. Every line a request logs carries its id as before.
 */
export class RequestLogger implements FastifyBaseLogger {
  private made: FastifyBaseLogger | null = null;

  constructor(
    private readonly parent: FastifyBaseLogger,
    private readonly bindings: Bindings,
    private readonly options: ChildLoggerOptions,
  ) {}

  private get logger(): FastifyBaseLogger {
    return (this.made ??= this.parent.child(this.bindings, this.options));
  }

  get level(): string {
    return this.made?.level ?? this.options.level ?? this.parent.level;
  }

  set level(level: string) {
    this.logger.level = level;
  }

  private write(method: Method, args: unknown[]): void {
    if (!this.made && levelValue(method) < levelValue(this.level)) return;
    const logger = this.logger;
    (logger[method] as (...line: unknown[]) => void).apply(logger, args);
  }

  fatal(...args: unknown[]): void {
    this.write('fatal', args);
  }
  error(...args: unknown[]): void {
    this.write('error', args);
  }
  warn(...args: unknown[]): void {
    this.write('warn', args);
  }
  info(...args: unknown[]): void {
    this.write('info', args);
  }
  debug(...args: unknown[]): void {
    this.write('debug', args);
  }
  trace(...args: unknown[]): void {
    this.write('trace', args);
  }
  silent(): void {}

  child(bindings: Bindings, options?: ChildLoggerOptions): FastifyBaseLogger {
    return this.logger.child(bindings, options);
  }
}

/** Fastify options for the request log above (one controller per app) and requests' loggers. */
export function requestLogging(): Pick<
  FastifyServerOptions,
  'logController' | 'childLoggerFactory'
> {
  return {
    logController: new QuietRequestLog(),
    childLoggerFactory: (logger, bindings, options) => new RequestLogger(logger, bindings, options),
  };
}

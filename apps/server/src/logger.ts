// One pino logger for the server. Secrets never reach the log: the redaction list covers every
// place a key or token could appear (config, headers, request bodies).
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

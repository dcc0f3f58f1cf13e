// POST /api/client-errors: what the browser's error boundaries caught, logged here so the error
// screen's 'Our team has been notified' (SPEC §2 Other) and a contained chart error (SPEC §8 'Chart
// errors are caught and reported') are true. Hostile like any input: a small body, every field
// bounded, unknown fields refused, rate-limited as a write; nothing is stored, only logged.
import type { FastifyInstance } from 'fastify';
import type { RouteBodyParsed } from '@unit/protocol/wire';
import { WRITE_LIMIT } from './security';
import { tableRoute } from './table-route';

/** Enough for a message and two stack traces; larger bodies are refused with 413 before parsing. */
export const CLIENT_ERROR_BODY_LIMIT = 16_384;

export type ClientErrorReport = RouteBodyParsed<'clientErrors'>;

export function registerClientErrorRoutes(app: FastifyInstance): void {
  tableRoute(
    app,
    'clientErrors',
    ({ body: report, request, reply }) => {
      request.log.error(
        { clientError: report, userAgent: request.headers['user-agent'] },
        'client error',
      );
      return reply.status(204).send();
    },
    { config: WRITE_LIMIT, bodyLimit: CLIENT_ERROR_BODY_LIMIT },
  );
}

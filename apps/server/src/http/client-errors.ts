// POST /api/client-errors: what the browser's error boundaries caught, logged here so the error
// screen's 'Our team has been notified' (SPEC §2 Other) and a contained chart error (SPEC §8 'Chart
// errors are caught and reported') are true. Hostile like any input: a small body, every field
// bounded, unknown fields refused, rate-limited as a write; nothing is stored, only logged.
import type { FastifyInstance } from 'fastify';
import * as z from 'zod';
import { parseInput } from './errors';
import { WRITE_LIMIT } from './security';

/** Enough for a message and two stack traces; larger bodies are refused with 413 before parsing. */
export const CLIENT_ERROR_BODY_LIMIT = 16_384;

const clientError = z.strictObject({
  /** where it was caught: the whole screen or one contained part */
  boundary: z.enum(['screen', 'chart']),
  message: z.string().max(1_000),
  stack: z.string().max(6_000).optional(),
  componentStack: z.string().max(6_000).optional(),
  /** the page's path and query, never another origin */
  path: z.string().max(500).regex(/^\//, 'expected a path'),
});

export type ClientErrorReport = z.infer<typeof clientError>;

export function registerClientErrorRoutes(app: FastifyInstance): void {
  app.post(
    '/api/client-errors',
    { config: WRITE_LIMIT, bodyLimit: CLIENT_ERROR_BODY_LIMIT },
    async (request, reply) => {
      const report = parseInput(clientError, request.body);
      request.log.error(
        { clientError: report, userAgent: request.headers['user-agent'] },
        'client error',
      );
      return reply.status(204).send();
    },
  );
}

// Every /api error is JSON {error, code} with a code of api.ts. Routes throw ApiError; the one
// handler here maps it, zod failures, Fastify's own errors and the unexpected.
import type { FastifyError, FastifyInstance } from 'fastify';
import * as z from 'zod';
import type { ApiErrorDto, ErrorCode } from '@unit/protocol';
import { CHAIN_UNAVAILABLE_MESSAGE, ChainUnavailableError } from '../chain/port';

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: ErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

export const notFound = (message = 'Not found') => new ApiError(404, 'not_found', message);

/** Validates a request part at the edge; a failure is a 400 naming what was wrong. */
export function parseInput<T>(schema: z.ZodType<T>, value: unknown): T {
  const result = schema.safeParse(value);
  if (!result.success) throw new ApiError(400, 'bad_request', z.prettifyError(result.error));
  return result.data;
}

function body(error: string, code: ErrorCode): ApiErrorDto {
  return { error, code };
}

export function installErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((err: FastifyError | ApiError, request, reply) => {
    if (err instanceof ApiError) {
      return reply.status(err.status).send(body(err.message, err.code));
    }
    if (err instanceof ChainUnavailableError) {
      request.log.warn({ reason: err.message }, 'chain service unavailable');
      return reply.status(503).send(body(CHAIN_UNAVAILABLE_MESSAGE, 'chain_unavailable'));
    }
    const status = typeof err.statusCode === 'number' ? err.statusCode : 500;
    if (status === 429) {
      return reply.status(429).send(body('Too many requests, try again shortly', 'rate_limited'));
    }
    if (status >= 400 && status < 500) {
      return reply.status(status).send(body(err.message, 'bad_request'));
    }
    request.log.error({ err }, 'request failed');
    return reply.status(500).send(body('Unknown error', 'internal'));
  });
}

// Every /api error is JSON {error, code} with a code of api.ts. Routes throw the domain's one error
// type, DomainError (../errors.ts); the one handler here answers it with its code's status
// (ERROR_HTTP_STATUS in the protocol) and maps zod failures, Fastify's own errors and the unexpected.
import type { FastifyError, FastifyInstance } from 'fastify';
import * as z from 'zod';
import { ERROR_HTTP_STATUS, type ApiErrorDto, type ErrorCode } from '@unit/protocol';
import { CHAIN_UNAVAILABLE_MESSAGE, ChainUnavailableError } from '../chain/port';
import { DomainError } from '../errors';

export const notFound = (message = 'Not found') => new DomainError('not_found', message);

/** Validates a request part at the edge; a failure is a 400 naming what was wrong. */
export function parseInput<T>(schema: z.ZodType<T>, value: unknown): T {
  const result = schema.safeParse(value);
  if (!result.success) throw new DomainError('bad_request', z.prettifyError(result.error));
  return result.data;
}

function body(error: string, code: ErrorCode): ApiErrorDto {
  return { error, code };
}

export function installErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((err: FastifyError | DomainError, request, reply) => {
    if (err instanceof DomainError) {
      return reply.status(err.status).send(body(err.message, err.code));
    }
    if (err instanceof ChainUnavailableError) {
      request.log.warn({ reason: err.message }, 'chain service unavailable');
      return reply
        .status(ERROR_HTTP_STATUS.chain_unavailable)
        .send(body(CHAIN_UNAVAILABLE_MESSAGE, 'chain_unavailable'));
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

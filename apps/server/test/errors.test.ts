import { describe, expect, it } from 'vitest';
import type { ErrorCode } from '@unit/protocol';
import { DomainError } from '../src/errors';

describe('the one domain error', () => {
  it('answers /api with the status each code had before the table', () => {
    // The statuses routes and the handler wrote by hand before ERROR_HTTP_STATUS: the wire keeps them.
    const before: [ErrorCode, number][] = [
      ['bad_request', 400],
      ['unauthorized', 401],
      ['forbidden', 403],
      ['not_devnet', 403],
      ['not_found', 404],
      ['rate_limited', 429],
      ['internal', 500],
      ['not_configured', 503],
      ['no_price', 503],
      ['chain_unavailable', 503],
    ];
    for (const [code, status] of before) expect(new DomainError(code, 'x').status).toBe(status);
  });
});

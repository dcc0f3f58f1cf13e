// A chain service that does not answer reaches an /api caller as a retryable 503, not 'internal'.
import { describe, expect, it } from 'vitest';
import Fastify from 'fastify';
import { CHAIN_UNAVAILABLE_MESSAGE, ChainUnavailableError } from '../src/chain/port';
import { installErrorHandling } from '../src/http/errors';

describe('/api errors of the chain', () => {
  it('answers 503 chain_unavailable when a chain service did not answer', async () => {
    const app = Fastify();
    installErrorHandling(app);
    app.get('/api/probe', () => {
      throw new ChainUnavailableError('/tx/00/status answered 502');
    });
    const res = await app.inject({ method: 'GET', url: '/api/probe' });
    expect(res.statusCode).toBe(503);
    // The upstream's own words stay in the log.
    expect(res.json()).toEqual({ error: CHAIN_UNAVAILABLE_MESSAGE, code: 'chain_unavailable' });
    await app.close();
  });
});

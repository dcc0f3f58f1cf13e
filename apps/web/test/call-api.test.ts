// The web app's calls through the route table (src/api/call.ts): an answer in its route's shape is
// returned as parsed, one of another shape or not JSON at all is an HttpError the page can show,
// and a 204 is null.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { http, HttpResponse } from 'msw';
import { callApi } from '../src/api/call';
import { HttpError, MALFORMED_ANSWER } from '../src/api/http';
import { server } from './server';

beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
afterAll(() => server.close());
afterEach(() => server.resetHandlers());

const price = { USD: 95_000, time: 1_700_000_000, stale: false, stale_reason: null };

async function failure(call: Promise<unknown>): Promise<HttpError> {
  const error = await call.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(HttpError);
  return error as HttpError;
}

describe('callApi', () => {
  it('returns an answer in its route’s shape', async () => {
    server.use(http.get('*/api/bitcoin-price', () => HttpResponse.json(price)));
    expect(await callApi('bitcoinPrice', {})).toEqual(price);
  });

  it('refuses an answer of another shape with a sentence naming the route', async () => {
    server.use(http.get('*/api/bitcoin-price', () => HttpResponse.json({ ...price, USD: 'high' })));
    const error = await failure(callApi('bitcoinPrice', {}));
    expect(error.code).toBe(MALFORMED_ANSWER);
    expect(error.message).toMatch(/GET \/api\/bitcoin-price .*Reload the page/);
  });

  it('refuses an answer that is not JSON', async () => {
    server.use(http.get('*/api/missions', () => new HttpResponse('<html>proxy</html>')));
    const error = await failure(callApi('missions', { query: { address: 'tb1qexampleaddress0' } }));
    expect(error.code).toBe(MALFORMED_ANSWER);
    expect(error.message).toMatch(/not readable/);
  });

  it('keeps the server’s own error sentence and code', async () => {
    server.use(
      http.get('*/api/users/:address/community', () =>
        HttpResponse.json({ error: 'No such user', code: 'not_found' }, { status: 404 }),
      ),
    );
    const error = await failure(
      callApi('userCommunity', { params: { address: 'tb1qexampleaddress0' } }),
    );
    expect([error.status, error.code, error.message]).toEqual([404, 'not_found', 'No such user']);
  });

  it('answers null for a 204, and sends a POST’s body as JSON', async () => {
    let sent: unknown = null;
    server.use(
      http.post('*/api/client-errors', async ({ request }) => {
        sent = await request.json();
        return new HttpResponse(null, { status: 204 });
      }),
    );
    const body = { boundary: 'chart' as const, message: 'It broke.', path: '/' };
    expect(await callApi('clientErrors', { body })).toBeNull();
    expect(sent).toEqual(body);
  });
});

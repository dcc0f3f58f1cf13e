// The page's first data (src/api/first-data.ts): a GET the page carries the answer to is taken
// from it once, without a round trip; anything else, or later, asks the server.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { http, HttpResponse } from 'msw';
import { FIRST_DATA_FRESH_MS, FIRST_DATA_ID, resetFirstData } from '../src/api/first-data';
import { getJson } from '../src/api/http';
import { rememberVaultKey, VAULT_KEY_COOKIE } from '../src/wallet/vault-key-cookie';
import { server } from './server';

const pageCarries = (text: string) => {
  const block = document.createElement('script');
  block.type = 'application/json';
  block.id = FIRST_DATA_ID;
  block.textContent = text;
  document.body.append(block);
};

beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
afterAll(() => server.close());

let asked: string[] = [];
beforeEach(() => {
  asked = [];
  resetFirstData();
  server.use(
    http.get('*/api/config', ({ request }) => {
      asked.push(new URL(request.url).pathname);
      return HttpResponse.json({ from: 'server' });
    }),
  );
});
afterEach(() => {
  document.getElementById(FIRST_DATA_ID)?.remove();
  vi.restoreAllMocks();
  server.resetHandlers();
});

describe('the first data in the page', () => {
  it('answers its URL once, then the server answers', async () => {
    pageCarries(JSON.stringify({ '/api/config': { from: 'page' } }));
    expect(await getJson('/api/config')).toEqual({ from: 'page' });
    expect(asked).toEqual([]);
    expect(await getJson('/api/config')).toEqual({ from: 'server' });
    expect(asked).toEqual(['/api/config']);
  });

  it('answers only the exact URL, and never a write', async () => {
    pageCarries(JSON.stringify({ '/api/config?x=1': { from: 'page' } }));
    expect(await getJson('/api/config')).toEqual({ from: 'server' });
    server.use(http.post('*/api/config', () => HttpResponse.json({ from: 'server post' })));
    expect(await getJson('/api/config?x=1', { method: 'POST' })).toEqual({ from: 'server post' });
  });

  it('is not used once the page is old, nor when it cannot be read', async () => {
    pageCarries(JSON.stringify({ '/api/config': { from: 'page' } }));
    vi.spyOn(performance, 'now').mockReturnValue(FIRST_DATA_FRESH_MS + 1);
    expect(await getJson('/api/config')).toEqual({ from: 'server' });
    vi.restoreAllMocks();
    document.getElementById(FIRST_DATA_ID)?.remove();
    resetFirstData();
    pageCarries('{"/api/config": ');
    expect(await getJson('/api/config')).toEqual({ from: 'server' });
    expect(asked).toHaveLength(2);
  });
});

describe('the vault key cookie', () => {
  const cookie = () =>
    document.cookie.split('; ').find((c) => c.startsWith(`${VAULT_KEY_COOKIE}=`)) ?? null;

  it('keeps a vault public key, and forgets it', () => {
    const key = 'ab'.repeat(32);
    rememberVaultKey(key);
    expect(cookie()).toBe(`${VAULT_KEY_COOKIE}=${key}`);
    rememberVaultKey(null);
    expect(cookie()).toBeNull();
  });

  it('keeps nothing the server would not read', () => {
    rememberVaultKey('AB'.repeat(32));
    expect(cookie()).toBeNull();
    rememberVaultKey('ab'.repeat(32) + '; Path=/x');
    expect(cookie()).toBeNull();
  });
});

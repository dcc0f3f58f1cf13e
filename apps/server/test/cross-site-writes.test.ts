// Writes a page on another site cannot make with the visitor's cookie, over
// HTTP against the real app: bodiless and text/plain POSTs carrying the session cookie, as another
// site's or a sibling subdomain's page sends them without a preflight, are refused before they do
// anything; the app's own pages and scripts (no Origin) are not.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiErrorDto } from '@unit/protocol';
import { signIn, testAccount } from './accounts';
import { startTestApp, type RunningApp } from './support';

let server: RunningApp;
const alice = testAccount(0x41);

beforeAll(async () => {
  server = await startTestApp({}, { writeLimitPerMinute: 1000 });
});
afterAll(async () => {
  await server.stop();
});

async function post(path: string, headers: Record<string, string>, body?: string) {
  const res = await fetch(`${server.url}${path}`, { method: 'POST', headers, body });
  const text = await res.text();
  return { status: res.status, body: (text ? JSON.parse(text) : null) as ApiErrorDto | null };
}

/** Whether the cookie still holds a session: signed out, /api/auth/session answers 200 with null. */
const signedIn = async (cookie: string) => {
  const res = await fetch(`${server.url}/api/auth/session`, { headers: { cookie } });
  expect(res.status).toBe(200);
  return (await res.json()) !== null;
};

describe('cookie writes from another site', () => {
  it('refuses them with and without a body, and they change nothing', async () => {
    const cookie = await signIn(server.url, alice);
    const siblingHost = `app.${new URL(server.url).host}`;
    const foreign: Array<Record<string, string>> = [
      { origin: 'https://evil.example' },
      { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' },
      // A sibling subdomain is the same site to SameSite=Lax, not the same origin.
      { origin: `http://${siblingHost}`, 'sec-fetch-site': 'same-site' },
      { 'sec-fetch-site': 'same-site' },
      // A sandboxed frame or a file.
      { origin: 'null' },
    ];
    const writes: Array<[string, string | undefined, Record<string, string>]> = [
      ['/api/auth/logout', undefined, {}],
      ['/api/telegram/link', undefined, {}],
      ['/api/oauth/discord/start', undefined, {}],
      ['/api/auth/logout', 'x', { 'content-type': 'text/plain' }],
      ['/api/users', JSON.stringify({ address: alice.address }), { 'content-type': 'text/plain' }],
    ];
    for (const headers of foreign) {
      for (const [path, body, extra] of writes) {
        const res = await post(path, { cookie, ...extra, ...headers }, body);
        expect(res.status, `${path} ${JSON.stringify(headers)}`).toBe(403);
        expect(res.body).toEqual({
          error: "Writes are accepted only from this app's own pages",
          code: 'forbidden',
        });
      }
    }
    // None of them logged Alice out.
    expect(await signedIn(cookie)).toBe(true);
  });

  it("accepts the app's own pages and clients that are not browsers", async () => {
    const own = await signIn(server.url, alice);
    // A page of this origin: Origin is the host the browser reached.
    const fromPage = await post('/api/telegram/link', {
      cookie: own,
      origin: new URL(server.url).origin,
      'sec-fetch-site': 'same-origin',
    });
    expect(fromPage.status).toBe(503); // not configured here: past the origin check
    const script = await post('/api/auth/logout', { cookie: own });
    expect(script.status).toBe(204);
    expect(await signedIn(own)).toBe(false);
  });

  it('accepts the configured public origin behind a proxy that rewrites Host', async () => {
    const proxied = await startTestApp({ PUBLIC_ORIGIN: 'https://unit.example' });
    try {
      const cookie = await signIn(proxied.url, alice);
      const res = await fetch(`${proxied.url}/api/auth/logout`, {
        method: 'POST',
        headers: { cookie, origin: 'https://unit.example', 'sec-fetch-site': 'same-origin' },
      });
      expect(res.status).toBe(204);
    } finally {
      await proxied.stop();
    }
  });
});

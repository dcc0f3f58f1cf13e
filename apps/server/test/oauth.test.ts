// Discord and Twitter account links over the real routes, against a local fake OAuth2 provider
// that checks what a real one checks: the client's credentials, the redirect URI, the one-time code
// and the PKCE verifier against the S256 challenge of the consent URL.
import { createHash } from 'node:crypto';
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiErrorDto } from '@unit/protocol';
import { getUser } from '../src/store';
import { postAs, signIn, testAccount } from './accounts';
import { startFakeProvider, type FakeProvider } from './oauth-provider';
import { startTestApp, type RunningApp } from './support';

let app: RunningApp;
let discord: FakeProvider;
let twitter: FakeProvider;
const alice = testAccount(0x71);
const mallory = testAccount(0x72);

beforeAll(async () => {
  discord = await startFakeProvider({
    clientId: 'discord-app',
    secret: 'discord-secret',
    accountId: '80351110224678912',
    profile: (id) => ({ id, username: 'nelly' }),
  });
  twitter = await startFakeProvider({
    clientId: 'twitter-app',
    secret: 'twitter-secret',
    accountId: '2244994945',
    profile: (id) => ({ data: { id, name: 'X', username: 'x' } }),
  });
  app = await startTestApp({
    DISCORD_CLIENT_ID: 'discord-app',
    DISCORD_CLIENT_SECRET: 'discord-secret',
    DISCORD_API_ROOT: discord.url,
    TWITTER_CLIENT_ID: 'twitter-app',
    TWITTER_CLIENT_SECRET: 'twitter-secret',
    TWITTER_API_ROOT: twitter.url,
  });
});
afterAll(async () => {
  await app.stop();
  await discord.close();
  await twitter.close();
});

const start = async (cookie: string | null, provider: string) =>
  postAs(cookie, `${app.url}/api/oauth/${provider}/start`, {});

/** Follows the callback as the browser would, with the session cookie; returns where it lands. */
async function callback(url: string, cookie: string | null): Promise<string> {
  const res = await fetch(url.replace(/^https?:\/\/[^/]+/, app.url), {
    redirect: 'manual',
    headers: cookie ? { cookie } : {},
  });
  expect(res.status).toBe(302);
  return res.headers.get('location')!;
}

describe('account links through OAuth2', () => {
  it('links Discord and Twitter to the signed-in address', async () => {
    expect(await (await fetch(`${app.url}/api/oauth/providers`)).json()).toEqual({
      discord: true,
      twitter: true,
    });
    expect((await start(null, 'discord')).status).toBe(401);
    const cookie = await signIn(app.url, alice);
    for (const [provider, fake, id] of [
      ['discord', discord, '80351110224678912'],
      ['twitter', twitter, '2244994945'],
    ] as const) {
      const res = await start(cookie, provider);
      expect(res.status).toBe(200);
      const consent = (res.body as { url: string }).url;
      expect(consent.startsWith(fake.url)).toBe(true);
      // The link in progress is kept so a copy of the table completes none: no state, and no
      // PKCE verifier (the one whose SHA-256 is the consent's challenge), in the clear.
      const asked = new URL(consent).searchParams;
      const rows = await app.store.db.selectFrom('oauth_states').selectAll().execute();
      expect(rows.length).toBeGreaterThan(0);
      for (const row of rows) {
        expect(row.state).not.toBe(asked.get('state'));
        const challenge = createHash('sha256').update(row.code_verifier).digest('base64url');
        expect(challenge).not.toBe(asked.get('code_challenge'));
      }
      expect(await callback(fake.approve(consent), cookie)).toBe(`/missions?linked=${provider}`);
      expect((await getUser(app.store.db, alice.address))?.[`${provider}_id`]).toBe(id);
    }
  });

  it('refuses a reused state, a forged code, and a callback in another session', async () => {
    const cookie = await signIn(app.url, alice);
    const consent = ((await start(cookie, 'discord')).body as { url: string }).url;
    const back = discord.approve(consent);
    // Mallory's browser completing Alice's flow links nothing to anyone.
    const other = await signIn(app.url, mallory);
    expect(await callback(back, other)).toBe('/missions?link_error=discord');
    // That attempt did not spend Alice's state (it did, breaking her link); her own
    // callback links, once.
    expect(await callback(back, cookie)).toBe('/missions?linked=discord');
    expect(await callback(back, cookie)).toBe('/missions?link_error=discord');

    const fresh = ((await start(cookie, 'discord')).body as { url: string }).url;
    const forged = discord.approve(fresh).replace(/code=[0-9a-f]+/, 'code=0000');
    expect(await callback(forged, cookie)).toBe('/missions?link_error=discord');
    expect((await getUser(app.store.db, mallory.address))?.discord_id ?? null).toBeNull();
  });
});

describe('one address per social account', () => {
  it('refuses to link an account another address holds, saying so', async () => {
    // Alice linked this Discord account above; Mallory's own flow with it ends in `taken`.
    const cookie = await signIn(app.url, mallory);
    const consent = ((await start(cookie, 'discord')).body as { url: string }).url;
    expect(await callback(discord.approve(consent), cookie)).toBe(
      '/missions?link_error=discord&reason=taken',
    );
    expect((await getUser(app.store.db, mallory.address))?.discord_id ?? null).toBeNull();
    expect((await getUser(app.store.db, alice.address))?.discord_id).toBe('80351110224678912');
  });
});

/** POST with the Host header a request to another name of this server would carry. */
const startWithHost = (base: string, cookie: string, host: string) =>
  new Promise<{ url: string }>((resolve, reject) => {
    const target = new URL(`${base}/api/oauth/discord/start`);
    const req = http.request(
      {
        host: target.hostname,
        port: target.port,
        path: target.pathname,
        method: 'POST',
        headers: { host, cookie, 'content-type': 'application/json' },
      },
      (res) => {
        let text = '';
        res.on('data', (chunk: Buffer) => (text += chunk.toString()));
        res.on('end', () => resolve(JSON.parse(text) as { url: string }));
      },
    );
    req.on('error', reject);
    req.end('{}');
  });

describe('the redirect URI', () => {
  it('is the configured public origin, whatever Host the request carries', async () => {
    const cookie = await signIn(app.url, alice);
    const devnetDefault = new URL((await startWithHost(app.url, cookie, 'evil.example')).url);
    expect(devnetDefault.searchParams.get('redirect_uri')).toBe(
      `${app.url}/api/oauth/discord/callback`,
    );
    const configured = await startTestApp({
      PUBLIC_ORIGIN: 'https://unit.example',
      TRUST_PROXY: 'loopback',
      DISCORD_CLIENT_ID: 'discord-app',
      DISCORD_CLIENT_SECRET: 'discord-secret',
      DISCORD_API_ROOT: discord.url,
    });
    try {
      const own = await signIn(configured.url, alice);
      const consent = new URL((await startWithHost(configured.url, own, 'evil.example')).url);
      expect(consent.searchParams.get('redirect_uri')).toBe(
        'https://unit.example/api/oauth/discord/callback',
      );
    } finally {
      await configured.stop();
    }
  });
});

describe('without client ids', () => {
  it('says the links are not configured', async () => {
    const plain = await startTestApp();
    try {
      expect(await (await fetch(`${plain.url}/api/oauth/providers`)).json()).toEqual({
        discord: false,
        twitter: false,
      });
      const direct = await postAs(
        await signIn(plain.url, alice),
        `${plain.url}/api/oauth/twitter/start`,
        {},
      );
      expect(direct.status).toBe(503);
      expect((direct.body as ApiErrorDto).code).toBe('not_configured');
    } finally {
      await plain.stop();
    }
  });
});

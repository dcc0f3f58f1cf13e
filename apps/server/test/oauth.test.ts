// Discord and Twitter account links over the real routes, against a local fake OAuth2 provider
// that checks what a real one checks: the client's credentials, the redirect URI, the one-time code
// and the PKCE verifier against the S256 challenge of the consent URL.
import { createHash, randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiErrorDto } from '@unit/protocol';
import { getUser } from '../src/store';
import { postAs, signIn, testAccount } from './accounts';
import { startTestApp, type RunningApp } from './support';

interface FakeProvider {
  url: string;
  /** What the consent screen would do: approve and answer the callback URL with a fresh code. */
  approve(consentUrl: string): string;
  tokenRequests: URLSearchParams[];
  close(): Promise<void>;
}

async function startFakeProvider(o: {
  clientId: string;
  secret: string;
  accountId: string;
  profile: (id: string) => object;
}): Promise<FakeProvider> {
  const codes = new Map<string, { challenge: string; redirect: string }>();
  const tokens = new Set<string>();
  const fake: FakeProvider = {
    url: '',
    tokenRequests: [],
    approve(consentUrl) {
      const url = new URL(consentUrl);
      expect(url.searchParams.get('client_id')).toBe(o.clientId);
      expect(url.searchParams.get('code_challenge_method')).toBe('S256');
      const code = randomBytes(8).toString('hex');
      const redirect = url.searchParams.get('redirect_uri')!;
      codes.set(code, { challenge: url.searchParams.get('code_challenge')!, redirect });
      return `${redirect}?code=${code}&state=${url.searchParams.get('state')}`;
    },
    close: async () => undefined,
  };
  const server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (c: Buffer) => (raw += c.toString()));
    req.on('end', () => {
      const json = (status: number, body: object) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(body));
      };
      if (req.method === 'POST' && /oauth2\/token$/.test(req.url ?? '')) {
        const form = new URLSearchParams(raw);
        fake.tokenRequests.push(form);
        const basic = `Basic ${Buffer.from(`${o.clientId}:${o.secret}`).toString('base64')}`;
        const issued = codes.get(form.get('code') ?? '');
        codes.delete(form.get('code') ?? '');
        const verifier = form.get('code_verifier') ?? '';
        const challenge = createHash('sha256').update(verifier).digest('base64url');
        if (
          req.headers.authorization !== basic ||
          !issued ||
          issued.challenge !== challenge ||
          issued.redirect !== form.get('redirect_uri')
        ) {
          return json(400, { error: 'invalid_grant' });
        }
        const token = randomBytes(8).toString('hex');
        tokens.add(token);
        return json(200, { access_token: token, token_type: 'Bearer', expires_in: 600 });
      }
      if (req.method === 'GET' && /(users\/@me|users\/me)$/.test(req.url ?? '')) {
        const token = req.headers.authorization?.replace(/^Bearer /, '') ?? '';
        return tokens.has(token) ? json(200, o.profile(o.accountId)) : json(401, {});
      }
      json(404, {});
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  fake.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  fake.close = () => new Promise((resolve) => server.close(() => resolve()));
  return fake;
}

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
    // That attempt did not spend Alice's state (issue 24: it did, breaking her link); her own
    // callback links, once.
    expect(await callback(back, cookie)).toBe('/missions?linked=discord');
    expect(await callback(back, cookie)).toBe('/missions?link_error=discord');

    const fresh = ((await start(cookie, 'discord')).body as { url: string }).url;
    const forged = discord.approve(fresh).replace(/code=[0-9a-f]+/, 'code=0000');
    expect(await callback(forged, cookie)).toBe('/missions?link_error=discord');
    expect((await getUser(app.store.db, mallory.address))?.discord_id ?? null).toBeNull();
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

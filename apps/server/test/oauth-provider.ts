// A local fake OAuth2 provider that checks what a real one checks: the client's credentials, the
// redirect URI, the one-time code and the PKCE verifier against the S256 challenge of the consent
// URL. Shared by the account-link tests on SQLite and PostgreSQL.
import { createHash, randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'vitest';

export interface FakeProvider {
  url: string;
  /** What the consent screen would do: approve and answer the callback URL with a fresh code. */
  approve(consentUrl: string): string;
  tokenRequests: URLSearchParams[];
  close(): Promise<void>;
}

export async function startFakeProvider(o: {
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

// Sign-in that a page elsewhere cannot relay, over HTTP against the
// real app on loopback: a second loopback origin plays the phishing page that asks our server for
// a challenge with its own Host; the challenge names our configured origin and network whatever
// Host or X-Forwarded-Host says, a message rewritten to name another site is refused, an address
// of another network gets neither challenge nor session, and BIP-322 signatures verify with the
// `smp` prefix the finished BIP text has signers write as well as without.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { NETWORK, p2wpkh } from '@scure/btc-signer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signBip322Simple } from '@unit/bitcoin';
import type { ApiErrorDto, AuthChallengeDto } from '@unit/protocol';
import { challenge, testAccount } from './accounts';
import { postJson, startTestApp, type RunningApp } from './support';

let server: RunningApp;
let relay: http.Server;
let relayHost: string;
const victim = testAccount(0x31);

/** POST JSON to our server with the Host (and other headers) a relaying page would send. */
function postWithHost(
  url: string,
  headers: Record<string, string>,
  body: unknown,
): Promise<{ status: number; body: unknown }> {
  return new Promise((resolve, reject) => {
    const target = new URL(url);
    const req = http.request(
      {
        host: target.hostname,
        port: target.port,
        path: target.pathname,
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
      },
      (res) => {
        let text = '';
        res.on('data', (chunk: Buffer) => (text += chunk.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) }));
      },
    );
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

beforeAll(async () => {
  server = await startTestApp();
  // The attacker's page, on another loopback origin: its backend asks our server for a challenge
  // under its own name, as a reverse proxy in front of our API would.
  relay = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (chunk: Buffer) => (raw += chunk.toString()));
    req.on('end', () => {
      void postWithHost(
        `${server.url}/api/auth/challenge`,
        { host: req.headers.host ?? '' },
        JSON.parse(raw),
      ).then((answer) => {
        res.writeHead(answer.status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(answer.body));
      });
    });
  });
  await new Promise<void>((resolve) => relay.listen(0, '127.0.0.1', resolve));
  relayHost = `localhost:${(relay.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((resolve) => relay.close(resolve));
  await server.stop();
});

const verify = (body: { address: string; message: string; signature: string }) =>
  postJson(`${server.url}/api/auth/verify`, body);

describe('a challenge relayed by a page elsewhere', () => {
  it('names our origin and network, so the only message that redeems is the honest one', async () => {
    const ours = new URL(server.url);
    // The victim's browser asks the attacker's page, which asks us with Host: localhost:<its port>.
    const res = await fetch(`http://${relayHost}/challenge`, {
      method: 'POST',
      body: JSON.stringify({ address: victim.address }),
    });
    expect(res.status).toBe(200);
    const { message } = (await res.json()) as AuthChallengeDto;
    const lines = message.split('\n');
    expect(lines[0]).toBe(`${ours.host} wants you to sign in to UNIT with your Bitcoin account:`);
    expect(message).toContain(`\nURI: ${ours.origin}\n`);
    expect(message).toContain('\nNetwork: devnet\n');
    expect(message).not.toContain(relayHost);

    // The attacker shows the victim a message naming its own site: signed, it redeems nothing.
    const phished = message
      .replace(ours.host, relayHost)
      .replace(`URI: ${ours.origin}`, `URI: http://${relayHost}`);
    const refused = await verify({
      address: victim.address,
      message: phished,
      signature: victim.sign(phished),
    });
    expect(refused.status).toBe(401);
    expect((refused.body as ApiErrorDto).error).toMatch(/not 127\.0\.0\.1:\d+/);

    // What the victim would see and sign is ours by name: that one alone gives a session.
    const honest = await verify({
      address: victim.address,
      message,
      signature: victim.sign(message),
    });
    expect(honest.status).toBe(200);
  });

  it('ignores X-Forwarded-Host behind a trusted proxy, naming PUBLIC_ORIGIN', async () => {
    const proxied = await startTestApp({
      PUBLIC_ORIGIN: 'https://unit.example',
      TRUST_PROXY: 'loopback',
    });
    try {
      const res = await postWithHost(
        `${proxied.url}/api/auth/challenge`,
        { host: 'evil.example', 'x-forwarded-host': 'evil.example', 'x-forwarded-proto': 'https' },
        { address: victim.address },
      );
      expect(res.status).toBe(200);
      const { message } = res.body as AuthChallengeDto;
      expect(message.split('\n')[0]).toBe(
        'unit.example wants you to sign in to UNIT with your Bitcoin account:',
      );
      expect(message).toContain('\nURI: https://unit.example\n');
      expect(message).not.toContain('evil.example');
    } finally {
      await proxied.stop();
    }
  });

  it('refuses a stored challenge that names another site, signature and all', async () => {
    // As a challenge handed out under a foreign Host before this fix (or before PUBLIC_ORIGIN
    // changed) would be: in the table, unexpired, unused, validly signed.
    const { message } = await challenge(server.url, victim.address);
    const ours = new URL(server.url);
    const foreign = message
      .replace(ours.host, 'evil.example')
      .replace(ours.origin, 'http://evil.example');
    const nonce = /^Nonce: (\w+)$/m.exec(foreign)![1]!;
    await server.store.db
      .updateTable('auth_challenges')
      .set({ message: foreign })
      .where('nonce', '=', nonce)
      .execute();
    const res = await verify({
      address: victim.address,
      message: foreign,
      signature: victim.sign(foreign),
    });
    expect(res.status).toBe(401);
    expect((res.body as ApiErrorDto).error).toContain('"evil.example"');
  });
});

describe('addresses of another network', () => {
  const secret = new Uint8Array(32).fill(0x32);
  const mainnet = p2wpkh(secp256k1.getPublicKey(secret, true), NETWORK);

  it('get no challenge and no session on the devnet, with a message saying why', async () => {
    const asked = await postJson(`${server.url}/api/auth/challenge`, {
      address: mainnet.address,
    });
    expect(asked.status).toBe(400);
    expect((asked.body as ApiErrorDto).error).toBe(
      'This is a mainnet address, but this server runs on devnet: connect an account of devnet (tb1…) to sign in',
    );
    // A devnet challenge re-addressed and signed by the mainnet key is refused the same way.
    const { message } = await challenge(server.url, victim.address);
    const forged = message.replace(victim.address, mainnet.address!);
    const signature = signBip322Simple({
      message: forged,
      script: mainnet.script,
      secretKey: secret,
    });
    const res = await verify({ address: mainnet.address!, message: forged, signature });
    expect(res.status).toBe(400);
    expect((res.body as ApiErrorDto).error).toMatch(/mainnet address/);
  });
});

describe('BIP-322 signature encodings', () => {
  it('signs in with the `smp`-prefixed simple signature as with the unprefixed one', async () => {
    for (const [address, sign] of [
      [victim.address, victim.sign],
      [victim.taprootAddress, victim.signTaproot],
    ] as const) {
      const { message } = await challenge(server.url, address);
      const res = await verify({ address, message, signature: `smp${sign(message)}` });
      expect(res).toEqual({ status: 200, body: { address } });
    }
    // A prefix on another's signature, or a variant this server does not take, is still refused.
    const { message } = await challenge(server.url, victim.address);
    const other = testAccount(0x33);
    for (const signature of [`smp${other.sign(message)}`, `ful${victim.sign(message)}`]) {
      expect((await verify({ address: victim.address, message, signature })).status).toBe(401);
    }
  });
});

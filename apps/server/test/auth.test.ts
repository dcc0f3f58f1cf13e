// Sign-in with Bitcoin over HTTP against the real app: real signatures of each address type
// (BIP-322 simple for P2WPKH and P2TR, BIP-137 legacy for P2WPKH), and every refusal the issue
// names (forged, another address's, expired, reused), then the writes a session guards.
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { concatBytes } from '@noble/hashes/utils.js';
import { base64 } from '@scure/base';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { ApiErrorDto, AuthSessionDto } from '@unit/protocol';
import { challenge, postAs, signIn, testAccount } from './accounts';
import { postJson, startTestApp, type RunningApp } from './support';

let server: RunningApp;
const alice = testAccount(0x11);
const mallory = testAccount(0x22);

beforeAll(async () => {
  server = await startTestApp();
});
afterAll(async () => {
  await server.stop();
});

const verify = (body: { address: string; message: string; signature: string }) =>
  postJson(`${server.url}/api/auth/verify`, body);

const session = async (cookie: string | null) => {
  const res = await fetch(`${server.url}/api/auth/session`, {
    headers: cookie ? { cookie } : {},
  });
  return { status: res.status, body: (await res.json()) as AuthSessionDto | ApiErrorDto | null };
};

/** A BIP-137 signature (Bitcoin Signed Message, recoverable ECDSA) with the P2WPKH header byte. */
function bip137(secret: Uint8Array, message: string): string {
  const varint = (n: number) => (n < 253 ? Uint8Array.of(n) : Uint8Array.of(253, n & 255, n >> 8));
  const prefix = new TextEncoder().encode('\x18Bitcoin Signed Message:\n');
  const body = new TextEncoder().encode(message);
  const digest = sha256(sha256(concatBytes(prefix, varint(body.length), body)));
  const sig = secp256k1.sign(digest, secret, { prehash: false, format: 'recovered' });
  // noble's recovered format is recid || r || s; BIP-137 puts 39 + recid first for P2WPKH.
  return base64.encode(concatBytes(Uint8Array.of(39 + sig[0]!), sig.subarray(1)));
}

describe('sign-in with Bitcoin', () => {
  it('hands out a challenge naming the domain, the address, a nonce and an expiry', async () => {
    const { message, expires_at } = await challenge(server.url, alice.address);
    const host = new URL(server.url).host;
    expect(message.split('\n')[0]).toBe(
      `${host} wants you to sign in to UNIT with your Bitcoin account:`,
    );
    expect(message.split('\n')[1]).toBe(alice.address);
    expect(message).toMatch(/^Nonce: [0-9a-f]{32}$/m);
    expect(message).toContain(`Expiration Time: ${new Date(expires_at * 1000).toISOString()}`);
    const again = await challenge(server.url, alice.address);
    expect(again.message).not.toBe(message);
  });

  it('signs in a P2WPKH address with a BIP-322 signature and sets an HttpOnly cookie', async () => {
    const { message } = await challenge(server.url, alice.address);
    const res = await fetch(`${server.url}/api/auth/verify`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ address: alice.address, message, signature: alice.sign(message) }),
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ address: alice.address });
    const cookie = res.headers.get('set-cookie') ?? '';
    expect(cookie).toMatch(/^unit_session=[\w-]{40,};/);
    expect(cookie).toContain('HttpOnly');
    expect(cookie).toContain('SameSite=Lax');
    // Plain HTTP on loopback: no Secure flag, or the browser would drop the cookie.
    expect(cookie).not.toContain('Secure');
    expect(await session(cookie.split(';')[0]!)).toEqual({
      status: 200,
      body: { address: alice.address },
    });
  });

  it('signs in a P2TR address with a BIP-322 signature', async () => {
    const { message } = await challenge(server.url, alice.taprootAddress);
    const res = await verify({
      address: alice.taprootAddress,
      message,
      signature: alice.signTaproot(message),
    });
    expect(res).toEqual({ status: 200, body: { address: alice.taprootAddress } });
  });

  it('signs in a P2WPKH address with a legacy BIP-137 signature', async () => {
    const { message } = await challenge(server.url, alice.address);
    const res = await verify({
      address: alice.address,
      message,
      signature: bip137(alice.secret, message),
    });
    expect(res.status).toBe(200);
  });

  it('refuses a forged signature, another address signing, and a tampered message', async () => {
    const { message } = await challenge(server.url, alice.address);
    const genuine = alice.sign(message);
    const forged = `${genuine.slice(0, 20)}${genuine[20] === 'A' ? 'B' : 'A'}${genuine.slice(21)}`;
    const refusals = [
      { address: alice.address, message, signature: forged },
      { address: alice.address, message, signature: mallory.sign(message) },
      { address: alice.address, message, signature: 'not base64 at all' },
      {
        address: alice.address,
        message: message.replace('sign in', 'sign'),
        signature: alice.sign(message.replace('sign in', 'sign')),
      },
      // Mallory's own valid signature of Alice's challenge is still not Alice's.
      { address: mallory.address, message, signature: mallory.sign(message) },
    ];
    for (const body of refusals) {
      const res = await verify(body);
      expect(res.status).toBe(401);
      expect((res.body as ApiErrorDto).code).toBe('unauthorized');
    }
    // None of the refusals spent the challenge: Alice's real signature still works once.
    expect(
      (await verify({ address: alice.address, message, signature: alice.sign(message) })).status,
    ).toBe(200);
  });

  it('refuses a replayed challenge, also when two verifies race', async () => {
    const { message } = await challenge(server.url, alice.address);
    const body = { address: alice.address, message, signature: alice.sign(message) };
    const [a, b] = await Promise.all([verify(body), verify(body)]);
    expect([a.status, b.status].sort()).toEqual([200, 401]);
    expect((await verify(body)).status).toBe(401);
  });

  it('refuses an expired challenge', async () => {
    const { message } = await challenge(server.url, alice.address);
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() + 6 * 60 * 1000 });
    try {
      const res = await verify({ address: alice.address, message, signature: alice.sign(message) });
      expect(res.status).toBe(401);
    } finally {
      vi.useRealTimers();
    }
  });

  it('answers null (200, signed out is no error) without a session and forgets it on logout', async () => {
    expect(await session(null)).toEqual({ status: 200, body: null });
    expect(await session('unit_session=made-up')).toEqual({ status: 200, body: null });
    const cookie = await signIn(server.url, alice);
    expect((await session(cookie)).status).toBe(200);
    const out = await fetch(`${server.url}/api/auth/logout`, {
      method: 'POST',
      headers: { cookie },
    });
    expect(out.status).toBe(204);
    expect(out.headers.get('set-cookie')).toMatch(/unit_session=;.*Max-Age=0/);
    expect(await session(cookie)).toEqual({ status: 200, body: null });
  });
});

describe("writes about a user need that user's session", () => {
  it('refuses register and mission verify without a session or with another one', async () => {
    const mine = await signIn(server.url, mallory);
    const writes = [
      [`${server.url}/api/users`, { address: alice.address }],
      [`${server.url}/api/missions/1/verify`, { address: alice.address }],
    ] as const;
    for (const [url, body] of writes) {
      const anonymous = await postAs(null, url, body);
      expect(anonymous.status).toBe(401);
      const foreign = await postAs(mine, url, body);
      expect(foreign.status).toBe(403);
      expect((foreign.body as ApiErrorDto).code).toBe('forbidden');
    }
    expect((await fetch(`${server.url}/api/users/${alice.address}`)).status).toBe(404);
    const own = await postAs(mine, `${server.url}/api/users`, { address: mallory.address });
    expect(own.status).toBe(201);
  });
});

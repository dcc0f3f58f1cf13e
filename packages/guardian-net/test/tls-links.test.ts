// Every link is TLS 1.3 with certificates bound to the parties' identity keys (tls-identity.ts,
// tls-link.ts): a capture of the bytes between two parties shows nothing of what they said, a
// party whose certificate another identity made is refused, and a plain connection to a TLS
// guardian gets no answer. The receiver is the guardian's own router (node-http.ts) opening each
// message with the envelope's real checks.
import { X509Certificate } from 'node:crypto';
import { createServer as createPlainServer, request as plainRequest } from 'node:http';
import { createServer, type Server } from 'node:https';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { openMessage, sealMessage, type Wire } from '../src/envelope';
import { newIdentity, type Identity } from '../src/identity';
import {
  INSECURE_PLAIN_HTTP_ENV,
  listensPlain,
  localUrl,
  plainSetProblem,
  routeGuardian,
} from '../src/node-http';
import { readPublic } from '../src/public-read';
import type { PublicRoutes } from '../src/public-routes';
import { makeTlsCredentials, peerIdentity, TlsPeerError } from '../src/tls-identity';
import { registerTlsCredentials, serverTlsOptions } from '../src/tls-link';
import { callParty } from '../src/transport';

const PSBT = 'cHNidP8BAHECAAAAAQ' + 'A'.repeat(40);
const closers: (() => void)[] = [];
afterEach(() => closers.splice(0).forEach((c) => c()));

const noPublic = { handle: () => false } as unknown as PublicRoutes;

/** A guardian's router for `self`, answering each message it opens with a signed echo. */
function router(self: Identity, senders: string[]) {
  return (req: Parameters<typeof routeGuardian>[0], res: Parameters<typeof routeGuardian>[1]) =>
    routeGuardian(req, res, {
      publicRoutes: noPublic,
      log: () => undefined,
      handle: async (raw): Promise<Wire> => {
        const p = openMessage(raw, { self: self.publicKey, knownSenders: new Set(senders) });
        return sealMessage({ type: 'echo', from: self.publicKey, to: p.from, setVersion: 1, body: p.body, re: p.nonce }, self.secretKey); // prettier-ignore
      },
    });
}

async function listen(server: Server | ReturnType<typeof createPlainServer>): Promise<number> {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  closers.push(() => server.close());
  return (server.address() as AddressInfo).port;
}

/** A TCP relay that records every byte both ways. */
async function relay(target: number): Promise<{ port: number; bytes: () => Buffer }> {
  const seen: Buffer[] = [];
  const server = net.createServer((client) => {
    const up = net.connect(target, '127.0.0.1');
    client.on('data', (b: Buffer) => (seen.push(b), up.write(b)));
    up.on('data', (b: Buffer) => (seen.push(b), client.write(b)));
    client.on('close', () => up.destroy());
    up.on('close', () => client.destroy());
    client.on('error', () => up.destroy());
    up.on('error', () => client.destroy());
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  closers.push(() => server.close());
  return { port: (server.address() as AddressInfo).port, bytes: () => Buffer.concat(seen) };
}

const inClear = (bytes: Buffer) =>
  bytes.includes(PSBT) || bytes.includes(Buffer.from(PSBT, 'base64').toString('hex'));

describe('TLS links bound to identity keys', () => {
  it('a captured exchange holds no message in clear; the same over plain HTTP does', async () => {
    const [guardian, coordinator] = [newIdentity(), newIdentity()];
    registerTlsCredentials(await makeTlsCredentials(coordinator));
    const tls = await makeTlsCredentials(guardian);
    const port = await listen(createServer(serverTlsOptions(tls), router(guardian, [coordinator.publicKey]))); // prettier-ignore
    const wire = await relay(port);
    const body = { psbt: PSBT, psbtHex: Buffer.from(PSBT, 'base64').toString('hex') };
    const url = `https://127.0.0.1:${wire.port}`;
    const call = {
      url,
      identity: coordinator,
      to: guardian.publicKey,
      setVersion: 1,
      type: 'price/fresh' as const,
    };
    const { payload } = await callParty({ ...call, body });
    expect(payload.body).toEqual(body);
    expect(wire.bytes().length).toBeGreaterThan(500);
    expect(inClear(wire.bytes())).toBe(false);

    const plainPort = await listen(createPlainServer(router(guardian, [coordinator.publicKey])));
    const plainWire = await relay(plainPort);
    await callParty({ ...call, url: `http://127.0.0.1:${plainWire.port}`, body });
    expect(inClear(plainWire.bytes())).toBe(true);
  });

  it('refuses a server bound to another identity than the one called', async () => {
    const [guardian, impostor, coordinator] = [newIdentity(), newIdentity(), newIdentity()];
    registerTlsCredentials(await makeTlsCredentials(coordinator));
    const tls = await makeTlsCredentials(impostor);
    const port = await listen(createServer(serverTlsOptions(tls), router(impostor, [coordinator.publicKey]))); // prettier-ignore
    const call = { url: `https://127.0.0.1:${port}`, identity: coordinator, to: guardian.publicKey, setVersion: 1, type: 'price/fresh' as const, body: {} }; // prettier-ignore
    const err = await callParty(call).catch((e: Error & { cause?: unknown }) => e.cause);
    expect(err).toBeInstanceOf(TlsPeerError);
    expect((err as TlsPeerError).code).toBe('not-in-set');
  });

  it('refuses a message whose sender is not the party of the client certificate', async () => {
    const [guardian, coordinator, other] = [newIdentity(), newIdentity(), newIdentity()];
    const tls = await makeTlsCredentials(guardian);
    // `other` is a known sender, but connects with the coordinator's certificate.
    registerTlsCredentials({ ...(await makeTlsCredentials(coordinator)), identityKey: other.publicKey }); // prettier-ignore
    const port = await listen(createServer(serverTlsOptions(tls), router(guardian, [other.publicKey]))); // prettier-ignore
    const call = { url: `https://127.0.0.1:${port}`, identity: other, to: guardian.publicKey, setVersion: 1, type: 'price/fresh' as const, body: {} }; // prettier-ignore
    await expect(callParty(call)).rejects.toMatchObject({ code: 'bad-certificate' });
  });

  it('a plain HTTP request to a TLS guardian gets no answer', async () => {
    const tls = await makeTlsCredentials(newIdentity());
    const port = await listen(createServer(serverTlsOptions(tls), router(newIdentity(), [])));
    const outcome = await new Promise<string>((resolve) => {
      const req = plainRequest({ host: '127.0.0.1', port, method: 'POST', path: '/v1/message' }, (res) => resolve(`answered ${res.statusCode}`)); // prettier-ignore
      req.on('error', (e: Error & { code?: string }) => resolve(e.code ?? e.message));
      req.end('{}');
    });
    expect(outcome).not.toMatch(/^answered/);
  });

  it('a public GET reads only the member the set names, within its size cap', async () => {
    const [guardian, impostor] = [newIdentity(), newIdentity()];
    const health = { id: 1, priceCents: 9_876_543 };
    const serve = (id: Identity) => async () => {
      const tls = await makeTlsCredentials(id);
      return listen(createServer(serverTlsOptions(tls), (_req, res) => res.end(JSON.stringify(health)))); // prettier-ignore
    };
    const [real, fake] = [await serve(guardian)(), await serve(impostor)()];
    const member = (port: number) => ({ url: `https://127.0.0.1:${port}`, identityKey: guardian.publicKey }); // prettier-ignore
    const read = { timeoutMs: 2_000, maxBytes: 1_024 };
    expect((await readPublic(member(real), '/v1/health', read)).body).toEqual(health);
    // Another machine at the member's URL (its certificate bound to another identity): refused
    // before a byte is asked, so it never answers in the member's name.
    const refused = await readPublic(member(fake), '/v1/health', read).catch((e: Error) => e);
    expect((refused as Error & { cause?: unknown }).cause).toBeInstanceOf(TlsPeerError);
    await expect(readPublic(member(real), '/v1/health', { ...read, maxBytes: 10 })).rejects.toThrow('answer too large'); // prettier-ignore
  });

  it('a guardian with an http:// URL starts only with the local-development flag', () => {
    expect(() => listensPlain('http://127.0.0.1:4000', false)).toThrow(/--insecure-plain-http/);
    expect(listensPlain('http://127.0.0.1:4000', true)).toBe(true);
    expect(listensPlain('https://127.0.0.1:4000', true)).toBe(false);
  });

  it('a one-machine network is https unless plain HTTP is allowed, and a plain set is refused without it', () => {
    const before = process.env[INSECURE_PLAIN_HTTP_ENV];
    try {
      delete process.env[INSECURE_PLAIN_HTTP_ENV];
      expect(localUrl(7401)).toBe('https://127.0.0.1:7401');
      expect(plainSetProblem(['https://127.0.0.1:7401', 'http://127.0.0.1:7402'], '/net')).toMatch(/lists plain http:\/\/ URLs.*remove DATA_DIR.*--insecure-plain-http/); // prettier-ignore
      expect(plainSetProblem(['https://127.0.0.1:7401'], '/net')).toBeNull();
      process.env[INSECURE_PLAIN_HTTP_ENV] = '1';
      expect(localUrl(7401)).toBe('http://127.0.0.1:7401');
      expect(plainSetProblem(['http://127.0.0.1:7401'], '/net')).toBeNull();
    } finally {
      if (before === undefined) delete process.env[INSECURE_PLAIN_HTTP_ENV];
      else process.env[INSECURE_PLAIN_HTTP_ENV] = before;
    }
  });
});

describe('a peer certificate', () => {
  const codeOf = (f: () => unknown) => {
    try {
      f();
    } catch (e) {
      return e instanceof TlsPeerError ? e.code : String(e);
    }
    return 'accepted';
  };

  it('is accepted when bound to an expected identity, with a clear refusal otherwise', async () => {
    const [a, b] = [newIdentity(), newIdentity()];
    const raw = new X509Certificate((await makeTlsCredentials(a)).cert).raw;
    expect(peerIdentity(raw, (k) => k === a.publicKey)).toBe(a.publicKey);
    expect(codeOf(() => peerIdentity(raw, (k) => k === b.publicKey))).toBe('not-in-set');
    expect(codeOf(() => peerIdentity(undefined, () => true))).toBe('no-certificate');
    expect(codeOf(() => peerIdentity(Buffer.from('not a certificate'), () => true))).toBe('malformed'); // prettier-ignore
    const old = new X509Certificate((await makeTlsCredentials(a, Date.now() - 3 * 86_400_000)).cert); // prettier-ignore
    expect(codeOf(() => peerIdentity(old.raw, () => true))).toBe('expired');
  });

  it('is refused when its binding names an identity that did not sign its key (a wrong pin)', async () => {
    const [a, b] = [newIdentity(), newIdentity()];
    // b's certificate, with a's identity key written over b's in the binding: same length, same form.
    const forged = Buffer.from(new X509Certificate((await makeTlsCredentials(b)).cert).raw);
    const at = forged.indexOf(Buffer.from(`unit-identity:${b.publicKey}`));
    forged.write(a.publicKey, at + 'unit-identity:'.length, 'latin1');
    expect(peerIdentity.bind(null, forged, () => true)).toThrow(TlsPeerError);
    expect(codeOf(() => peerIdentity(forged, () => true))).toMatch(/bad-binding|malformed/);
  });
});

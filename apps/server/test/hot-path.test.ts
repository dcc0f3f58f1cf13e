// The lean hot path: security headers computed once (the same ones @fastify/helmet
// sends), precompressed web assets with year-long caching for hashed files, and a request log that
// stays quiet unless a request is slow or the level is debug.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { brotliCompressSync, brotliDecompressSync, gzipSync } from 'node:zlib';
import Fastify from 'fastify';
import fastifyHelmet from '@fastify/helmet';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import precomputedHelmet from '../src/http/precomputed-helmet';
import { API_HEADERS, installSecurity } from '../src/http/security';
import { HASHED_ASSET_CACHE, registerStatic } from '../src/http/static';
import { requestLogging, SLOW_REQUEST_MS } from '../src/logger';

const CSP = {
  directives: {
    defaultSrc: ["'self'"],
    scriptSrc: ["'self'"],
    connectSrc: ["'self'", 'ws:'],
    frameAncestors: ["'none'"],
    upgradeInsecureRequests: null,
  },
};

describe('security headers computed once', () => {
  it('sends exactly the headers @fastify/helmet sends for the same options', async () => {
    const headersOf = async (register: (app: ReturnType<typeof Fastify>) => Promise<unknown>) => {
      const app = Fastify();
      await register(app);
      app.get('/x', async () => ({ ok: true }));
      const res = await app.inject({ url: '/x' });
      await app.close();
      const { date: _date, ...rest } = res.headers;
      return rest;
    };
    const options = { contentSecurityPolicy: CSP, hsts: false };
    const ours = await headersOf((app) => app.register(precomputedHelmet, options));
    const theirs = await headersOf((app) => app.register(fastifyHelmet, options));
    expect(ours).toEqual(theirs);
    expect(ours['content-security-policy']).toContain("connect-src 'self' ws:");
    expect(ours['strict-transport-security']).toBeUndefined();
  });

  it("gives the API's routes their own set, and a page or an unmatched URL helmet's", async () => {
    const app = Fastify();
    await installSecurity(app);
    app.get('/api/x', async () => ({ ok: true }));
    app.get('/page', async () => 'page');
    const api = await app.inject({ url: '/api/x' });
    const page = await app.inject({ url: '/page' });
    // A spelling of an API URL that matches no route is not an API answer.
    const unmatched = await app.inject({ url: '/api/x/..' });
    await app.close();
    const { date: _date, connection: _connection, ...apiHeaders } = api.headers;
    expect(apiHeaders).toEqual({
      ...API_HEADERS,
      'content-type': 'application/json; charset=utf-8',
      'content-length': '11',
    });
    for (const res of [page, unmatched]) {
      expect(res.headers['content-security-policy']).toContain("script-src 'self'");
      expect(res.headers['x-frame-options']).toBe('SAMEORIGIN');
    }
  });

  it('puts them on a write refused by the checks that come after them', async () => {
    const app = Fastify();
    await installSecurity(app);
    app.post('/api/w', async () => ({ ok: true }));
    const res = await app.inject({
      method: 'POST',
      url: '/api/w',
      headers: { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' },
    });
    await app.close();
    expect(res.statusCode).toBe(403);
    for (const [name, value] of Object.entries(API_HEADERS)) expect(res.headers[name]).toBe(value);
  });

  it('puts them on 404s too, through the app security set-up', async () => {
    const app = Fastify();
    await installSecurity(app);
    const res = await app.inject({ url: '/nowhere' });
    await app.close();
    expect(res.statusCode).toBe(404);
    expect(res.headers['content-security-policy']).toContain("script-src 'self'");
    expect(res.headers['x-content-type-options']).toBe('nosniff');
  });
});

describe('precompressed web assets', () => {
  const dist = fs.mkdtempSync(path.join(os.tmpdir(), 'unit-dist-'));
  const script = `console.log(${JSON.stringify('vault '.repeat(400))});`;
  let app: ReturnType<typeof Fastify>;

  beforeAll(async () => {
    fs.mkdirSync(path.join(dist, 'assets'));
    fs.writeFileSync(
      path.join(dist, 'index.html'),
      '<!doctype html><script src="/assets/app-1a2b.js"></script>',
    );
    const asset = path.join(dist, 'assets', 'app-1a2b.js');
    fs.writeFileSync(asset, script);
    fs.writeFileSync(`${asset}.br`, brotliCompressSync(script));
    fs.writeFileSync(`${asset}.gz`, gzipSync(script));
    app = Fastify();
    await registerStatic(app, dist);
  });
  afterAll(async () => {
    await app.close();
    fs.rmSync(dist, { recursive: true, force: true });
  });

  it('sends the brotli or gzip file as the client accepts, cached for a year', async () => {
    const br = await app.inject({
      url: '/assets/app-1a2b.js',
      headers: { 'accept-encoding': 'gzip, br' },
    });
    expect(br.headers['content-encoding']).toBe('br');
    expect(br.headers['cache-control']).toBe(HASHED_ASSET_CACHE);
    expect(brotliDecompressSync(br.rawPayload).toString()).toBe(script);
    const gz = await app.inject({
      url: '/assets/app-1a2b.js',
      headers: { 'accept-encoding': 'gzip' },
    });
    expect(gz.headers['content-encoding']).toBe('gzip');
    const plain = await app.inject({
      url: '/assets/app-1a2b.js',
      headers: { 'accept-encoding': 'identity' },
    });
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.body).toBe(script);
    expect(plain.headers['cache-control']).toBe(HASHED_ASSET_CACHE);
  });

  it('revalidates the page itself, by name or as an SPA route (which is per visitor)', async () => {
    for (const [url, cache] of [
      ['/index.html', 'no-cache'],
      // an SPA route's page carries its first data (first-page.ts): no shared cache keeps it
      ['/', 'private, no-cache'],
      ['/liquidations', 'private, no-cache'],
    ]) {
      const res = await app.inject({ url });
      expect({ url, status: res.statusCode, cache: res.headers['cache-control'] }).toEqual({
        url,
        status: 200,
        cache,
      });
    }
  });
});

describe('request log', () => {
  async function logged(level: string, delayMs: number): Promise<Array<Record<string, unknown>>> {
    const lines: Array<Record<string, unknown>> = [];
    const stream = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
        done();
      },
    });
    const app = Fastify({ loggerInstance: pino({ level }, stream), ...requestLogging() });
    app.get('/x', async () => {
      await new Promise((resolve) => setTimeout(resolve, delayMs));
      return { ok: true };
    });
    await app.inject({ url: '/x' });
    await app.close();
    return lines.filter((l) => l.url === '/x');
  }

  it('says nothing of a quick request at info', async () => {
    expect(await logged('info', 0)).toEqual([]);
  });

  it('logs a slow request at warn, and every request at debug', async () => {
    const slow = await logged('info', SLOW_REQUEST_MS + 20);
    expect(slow).toMatchObject([{ level: 40, msg: 'slow request', status: 200 }]);
    expect(await logged('debug', 0)).toMatchObject([{ level: 20, msg: 'request' }]);
  });

  it("makes a request's logger only when it logs a line, every line with the request's id", async () => {
    const lines: Array<Record<string, unknown>> = [];
    const stream = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
        done();
      },
    });
    const parent = pino({ level: 'info' }, stream);
    let children = 0;
    const child = parent.child.bind(parent);
    parent.child = ((...args: Parameters<typeof child>) => {
      children++;
      return child(...args);
    }) as typeof parent.child;
    const app = Fastify({ loggerInstance: parent, ...requestLogging() });
    app.get('/quiet', async (request) => {
      request.log.debug('below the level');
      return { ok: true };
    });
    app.get('/says', async (request) => {
      request.log.info({ n: 1 }, 'first');
      request.log.warn('second');
      return { ok: true };
    });
    await app.ready();
    children = 0;
    await app.inject({ url: '/quiet' });
    expect(children).toBe(0);
    await app.inject({ url: '/says' });
    await app.inject({ url: '/says' });
    await app.close();
    expect(children).toBe(2);
    const said = lines.filter((l) => l.msg === 'first' || l.msg === 'second');
    expect(said.map((l) => [l.msg, l.level])).toEqual([
      ['first', 30],
      ['second', 40],
      ['first', 30],
      ['second', 40],
    ]);
    expect(said[0]).toMatchObject({ n: 1 });
    const ids = said.map((l) => l.reqId);
    expect(ids.every((id) => typeof id === 'string' && id.length > 0)).toBe(true);
    expect(ids[0]).toBe(ids[1]);
    expect(ids[2]).toBe(ids[3]);
    expect(ids[0]).not.toBe(ids[2]);
  });
});

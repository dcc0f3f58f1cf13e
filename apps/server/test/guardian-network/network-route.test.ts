// GET /api/network against real guardian processes: the CLI's DKG into a temporary directory, three
// `guardian start` processes, and the real app with GUARDIAN_NETWORK=external reading that
// directory. Each guardian is reached through a small counting proxy at the URL the set publishes
// (the guardian itself listens on another port, `--port`), so the test counts the health reads the
// app makes: concurrent callers must share one.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, request, type Server } from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOCAL_STOPPED_FILE, recordStopped, verifySet, type GuardianSet } from '@unit/guardian-net';
import { guardianNetworkSchema, type GuardianNetworkDto } from '@unit/protocol/wire';
import { HEALTH_TIMEOUT_MS, STOPPED } from '../../src/http/network-routes';
import { freePorts } from '../../../../packages/guardian-net/test/harness';
import { nodeArgs } from '../../../../packages/guardian-net/test/bins';
import { startTestApp, type RunningApp } from '../support';

const GUARDIAN_NET = path.join(
  path.dirname(fileURLToPath(import.meta.url)),
  '../../../../packages/guardian-net',
);
const CLI = path.join(GUARDIAN_NET, 'src', 'cli.ts');

interface Proc {
  child: ChildProcess;
  exited: Promise<number | null>;
  output: () => string;
}

function run(args: string[]): Proc {
  const child = spawn(process.execPath, [...nodeArgs(CLI), ...args], {
    cwd: GUARDIAN_NET,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (b: Buffer) => (out += b.toString()));
  child.stderr!.on('data', (b: Buffer) => (out += b.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  return { child, exited, output: () => out };
}

/** Forwards every request to `target`, counting the /v1/health ones. */
function countingProxy(port: number, target: number) {
  const counter = { health: 0, server: null as Server | null };
  const server = createServer((req, res) => {
    if (req.url === '/v1/health') counter.health++;
    const upstream = request(
      { host: '127.0.0.1', port: target, path: req.url, method: req.method, headers: req.headers },
      (up) => {
        res.writeHead(up.statusCode ?? 502, up.headers);
        up.pipe(res);
      },
    );
    upstream.on('error', () => {
      if (!res.headersSent) res.writeHead(502);
      res.end();
    });
    req.pipe(upstream);
  });
  counter.server = server;
  return new Promise<typeof counter>((resolve) =>
    server.listen(port, '127.0.0.1', () => resolve(counter)),
  );
}

async function waitHealthy(port: number): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    try {
      const res = await fetch(`http://127.0.0.1:${port}/v1/health`, {
        signal: AbortSignal.timeout(1_000),
      });
      if (res.ok) return;
    } catch {
      // not up yet
    }
    if (Date.now() > deadline) throw new Error(`guardian on ${port} did not come up`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Until the guardian on `port` has read a price of its own. */
async function waitPriced(port: number): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const res = await fetch(`http://127.0.0.1:${port}/v1/health`);
    if (((await res.json()) as { lastPrice?: unknown }).lastPrice) return;
    if (Date.now() > deadline) throw new Error(`guardian on ${port} read no price`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function network(app: RunningApp): Promise<{ status: number; body: unknown }> {
  const res = await fetch(`${app.url}/api/network`, { signal: AbortSignal.timeout(10_000) });
  return { status: res.status, body: await res.json() };
}

async function networkDto(app: RunningApp): Promise<GuardianNetworkDto> {
  const { status, body } = await network(app);
  expect(status, JSON.stringify(body)).toBe(200);
  return guardianNetworkSchema.parse(body);
}

/** A stand-in for two public tickers (mempool's and Coinbase's real shapes) at $97,000.00. */
function fakeTickers() {
  const server = createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    if (req.url === '/api/v1/prices')
      res.end(JSON.stringify({ time: Math.floor(Date.now() / 1000), USD: 97_000 }));
    else res.end(JSON.stringify({ data: { amount: '97000.00', base: 'BTC', currency: 'USD' } }));
  });
  return new Promise<Server>((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/**
 * The app's cache period here: shorter than the default (each test waits one out), long enough that
 * a burst of calls on a busy machine lands within one.
 */
const CACHE_MS = 3_000;
/** Long enough for a kept answer to expire and the next read to finish. */
const PAST_CACHE_MS = CACHE_MS + 100;

describe('GET /api/network with a guardian network', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'unit-network-route-'));
  const setFile = path.join(dir, 'guardian-set.json');
  const guardians = new Map<number, Proc>();
  const proxies: Array<Awaited<ReturnType<typeof countingProxy>>> = [];
  let set: GuardianSet;
  let app: RunningApp;
  let tickers: Server;

  beforeAll(async () => {
    const setPort = await freePorts(3);
    const dkg = run(['dkg', '--dir', dir, '--n', '3', '--t', '2', '--base-port', String(setPort)]);
    expect(await dkg.exited, dkg.output()).toBe(0);
    set = verifySet(JSON.parse(readFileSync(setFile, 'utf8')));
    tickers = await fakeTickers();
    const t = `http://127.0.0.1:${(tickers.address() as { port: number }).port}`;
    const ownPort = await freePorts(3);
    for (const id of [1, 2, 3]) {
      const port = ownPort + id - 1;
      const gdir = path.join(dir, `guardian-${id}`);
      const args = ['start', '--id', String(id), '--dir', gdir, '--port', String(port)];
      // Only guardian 1 reads feeds, so the page shows a price and a guardian without one.
      const feeds = id === 1 ? ['--feeds', `mempool@${t},coinbase@${t}`] : [];
      guardians.set(id, run([...args, '--policy', 'approve-all', ...feeds]));
      proxies.push(await countingProxy(setPort + id - 1, port));
    }
    await Promise.all([1, 2, 3].map((id) => waitHealthy(ownPort + id - 1)));
    // Guardian 1 up is not guardian 1 with a price: its first read of the feeds comes after.
    await waitPriced(ownPort);
    app = await startTestApp(
      { GUARDIAN_NETWORK: 'external', GUARDIAN_DIR: dir },
      { network: { cacheMs: CACHE_MS } },
    );
  }, 120_000);

  afterAll(async () => {
    await app?.stop();
    for (const g of guardians.values()) g.child.kill('SIGKILL');
    await Promise.all([...guardians.values()].map((g) => g.exited));
    await Promise.all(proxies.map((p) => new Promise((r) => p.server!.close(r))));
    await new Promise((r) => tickers?.close(r));
    rmSync(dir, { recursive: true, force: true });
  });

  it('lists all three guardians online, with their fingerprints and versions', async () => {
    const dto = await networkDto(app);
    expect(dto).toMatchObject({
      enabled: true,
      scheme: 'FROST (RFC 9591, secp256k1, BIP-340)',
      threshold: 2,
      size: 3,
      set_version: set.version,
      group_key: set.groupKey,
    });
    expect(dto.guardians.map((g) => g.id)).toEqual([1, 2, 3]);
    for (const [i, g] of dto.guardians.entries()) {
      const member = set.members[i]!;
      expect(g.name).toBe(member.name);
      expect(g.fingerprint).toBe(member.identityKey.slice(0, 16));
      expect(g.fingerprint).toMatch(/^[0-9a-f]{16}$/);
      expect(g.online).toBe(true);
      expect(g.version).toMatch(/\S/);
      expect(g.uptime_seconds).toBeGreaterThanOrEqual(0);
      expect(g.last_signature_at).toBeNull(); // never asked to sign yet
    }
    const [first, second] = dto.guardians;
    expect(first!.last_price).toMatchObject({ cents: 9_700_000 });
    expect(Math.abs(first!.last_price!.time - Date.now() / 1000)).toBeLessThan(60);
    expect(second!.last_price).toBeNull();
    expect(Math.abs(dto.checked_at - Date.now() / 1000)).toBeLessThan(30);
  });

  it('shows when each signer last gave a signature share', async () => {
    const sign = run(['sign', '--dir', dir, '--message', 'ab'.repeat(32)]);
    expect(await sign.exited, sign.output()).toBe(0);
    const signed = sign
      .output()
      .split('\n')
      .filter((l) => l.includes('"event":"signed"'))
      .map((l) => JSON.parse(l) as { signers: number[] })[0]!;
    expect(signed.signers).toHaveLength(2);
    await sleep(PAST_CACHE_MS);
    const dto = await networkDto(app);
    for (const g of dto.guardians) {
      if (signed.signers.includes(g.id))
        expect(Math.abs(g.last_signature_at! - Date.now() / 1000)).toBeLessThan(60);
      else expect(g.last_signature_at).toBeNull();
    }
  });

  it('shares one read among concurrent callers, and keeps it for a cache period', async () => {
    await sleep(PAST_CACHE_MS);
    const before = proxies.map((p) => p.health);
    const answers = await Promise.all(Array.from({ length: 25 }, () => networkDto(app)));
    expect(new Set(answers.map((a) => a.checked_at)).size).toBe(1);
    expect(proxies.map((p, i) => p.health - before[i]!)).toEqual([1, 1, 1]);
    // Callers within the cache period get the kept answer: the guardians are not asked again.
    await Promise.all(Array.from({ length: 10 }, () => networkDto(app)));
    expect(proxies.map((p, i) => p.health - before[i]!)).toEqual([1, 1, 1]);
  });

  it('shows a killed guardian offline within a cache period, the others online', async () => {
    const third = guardians.get(3)!;
    third.child.kill('SIGKILL');
    await third.exited;
    const deadline = Date.now() + CACHE_MS + HEALTH_TIMEOUT_MS + 1_000;
    let dto = await networkDto(app);
    while (dto.guardians[2]!.online && Date.now() < deadline) {
      await sleep(250);
      dto = await networkDto(app);
    }
    expect(dto.guardians.map((g) => g.online)).toEqual([true, true, false]);
    expect(dto.guardians[2]).toMatchObject({
      fingerprint: set.members[2]!.identityKey.slice(0, 16),
      version: null,
      uptime_seconds: null,
      last_price: null,
      stopped: null,
    });
    // The local network gave up restarting it (guardian local's stopped file): shown as stopped,
    // not as an offline guardian on its way back; its paths and error stay in the server's log.
    const message = 'guardian 3 stopped: it failed 3 times in a row right after starting.';
    recordStopped(dir, { guardian: 3, reason: 'guardian: its directory is lost', message });
    try {
      await sleep(PAST_CACHE_MS);
      dto = await networkDto(app);
      expect(JSON.stringify(dto)).not.toContain('its directory is lost');
      expect(dto.guardians.map((g) => [g.online, g.stopped])).toEqual([
        [true, null],
        [true, null],
        [false, STOPPED],
      ]);
    } finally {
      rmSync(path.join(dir, LOCAL_STOPPED_FILE));
    }
  });

  it('answers a tampered set with a clear error, and keeps serving', async () => {
    const honest = readFileSync(setFile, 'utf8');
    const tampered = JSON.parse(honest) as { members: Array<{ name: string }> };
    tampered.members[0]!.name = 'mallory';
    writeFileSync(setFile, JSON.stringify(tampered));
    try {
      await sleep(PAST_CACHE_MS);
      const { status, body } = await network(app);
      expect(status).toBe(503);
      expect(body).toMatchObject({ code: 'not_configured' });
      expect((body as { error: string }).error).toMatch(
        /^The published guardian set does not verify: guardian set carries a bad signature/,
      );
      const health = await fetch(`${app.url}/api/health`);
      expect(health.status).toBe(200);
    } finally {
      writeFileSync(setFile, honest);
    }
    await sleep(PAST_CACHE_MS);
    expect((await networkDto(app)).guardians[0]!.name).toBe(set.members[0]!.name);
  });

  it('says so when no set is published yet', async () => {
    const aside = `${setFile}.aside`;
    renameSync(setFile, aside);
    try {
      await sleep(PAST_CACHE_MS);
      const { status, body } = await network(app);
      expect(status).toBe(503);
      expect(body).toEqual({
        code: 'not_configured',
        error: 'The guardian network has not published its set yet',
      });
    } finally {
      renameSync(aside, setFile);
    }
  });
});

describe('GET /api/network when the server signs alone', () => {
  let app: RunningApp;
  beforeAll(async () => {
    app = await startTestApp();
  });
  afterAll(() => app.stop());

  it('says the network is off, lists no guardian, and names the one key', async () => {
    const dto = await networkDto(app);
    expect(dto).toMatchObject({
      enabled: false,
      threshold: 1,
      size: 1,
      set_version: 0,
      group_key: app.keys.guardPubkey,
      guardians: [],
      recent_exclusions: [],
    });
  });
});

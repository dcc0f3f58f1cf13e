// GET /api/network against real guardian processes: a network directory (its key dealt), three
// `guardian start` processes, and the real app with GUARDIAN_NETWORK=external reading that
// directory, every link TLS pinned to the set's identity keys. Each guardian is reached through a
// TCP relay at the URL the set publishes (the guardian itself listens on another port, `--port`),
// which counts the connections the app opens: with the relay's connections closed before a burst,
// concurrent callers must share one health read, so one new connection to each guardian.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOCAL_STOPPED_FILE, recordStopped, verifySet, type GuardianSet } from '@unit/guardian-net';
import { guardianNetworkSchema, type GuardianNetworkDto } from '@unit/protocol/wire';
import { HEALTH_TIMEOUT_MS, STOPPED } from '../../src/http/network-routes';
import { freePorts, waitHealthy } from '../../../../packages/guardian-net/test/harness';
import { Relay } from '../../../../packages/guardian-net/test/relay';
import { dealNetworkDir } from '../../../../packages/guardian-net/test/dealt-at';
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

/** Until guardian `m` (over its pinned TLS link) has read a price of its own. */
async function waitPriced(m: GuardianSet['members'][number]): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (!(await waitHealthy(m)).lastPrice)
    if (Date.now() > deadline) throw new Error(`guardian ${m.id} read no price`);
    else await new Promise((r) => setTimeout(r, 100));
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
  const relays: Relay[] = [];
  let set: GuardianSet;
  let app: RunningApp;
  let tickers: Server;

  beforeAll(async () => {
    const setPort = await freePorts(3);
    // The network's directory as `guardian dkg` leaves it, its key dealt in-process (dealt-at.ts).
    dealNetworkDir(dir, 3, 2, setPort);
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
      const relay = new Relay({ port: setPort + id - 1, target: port });
      relays.push(relay);
      await relay.listen();
    }
    await Promise.all(set.members.map((m) => waitHealthy(m)));
    // Guardian 1 up is not guardian 1 with a price: its first read of the feeds comes after.
    await waitPriced(set.members[0]!);
    app = await startTestApp(
      { GUARDIAN_NETWORK: 'external', GUARDIAN_DIR: dir },
      { network: { cacheMs: CACHE_MS } },
    );
  }, 120_000);

  afterAll(async () => {
    await app?.stop();
    for (const g of guardians.values()) g.child.kill('SIGKILL');
    await Promise.all([...guardians.values()].map((g) => g.exited));
    await Promise.all(relays.map((r) => r.close()));
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
    // The history: one set, made by the first DKG, published when its file was written.
    expect(dto.history).toHaveLength(1);
    expect(dto.history[0]).toMatchObject({ set_version: set.version, change: 'created', replaces: null, signing: true, group_key: set.groupKey, joined: [], left: [] }); // prettier-ignore
    expect(dto.history[0]!.members.map((m) => m.name)).toEqual(set.members.map((m) => m.name));
    expect(dto.history[0]!.published_at).toBe(Math.floor(statSync(setFile).mtimeMs / 1000));
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
    /** The connections `f` made the app open to each guardian, its kept-alive ones closed first. */
    const opened = async (f: () => Promise<unknown>) => {
      for (const r of relays) r.drop();
      const before = relays.map((r) => r.counts.connections);
      await f();
      return relays.map((r, i) => r.counts.connections - before[i]!);
    };
    await sleep(PAST_CACHE_MS);
    const one = await opened(() => networkDto(app));
    expect(one.every((n) => n > 0)).toBe(true);
    await sleep(PAST_CACHE_MS);
    let answers: GuardianNetworkDto[] = [];
    const burst = await opened(async () => {
      answers = await Promise.all(Array.from({ length: 25 }, () => networkDto(app)));
    });
    // Twenty-five callers at once cost each guardian what one caller does: one read, shared.
    expect(burst).toEqual(one);
    expect(new Set(answers.map((a) => a.checked_at)).size).toBe(1);
    // Callers within the cache period get the kept answer: the guardians are not asked again.
    const kept = await opened(() => Promise.all(Array.from({ length: 10 }, () => networkDto(app))));
    expect(kept).toEqual([0, 0, 0]);
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
      history: [],
    });
  });
});

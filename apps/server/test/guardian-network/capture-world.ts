// A world whose every link to a guardian passes a TCP relay that records its bytes: a 2-of-3 set
// whose URLs are the relays' ports (its network directory as `guardian dkg` leaves it, the key
// dealt in-process: dealt-at.ts), each guardian then listens on a port of its
// own behind its relay, and the real app coordinates the set (GUARDIAN_NETWORK external). So every
// byte between the app and a guardian, and between guardians, is in the capture. Over TLS (the
// default) or plain HTTP (UNIT_GUARDIAN_INSECURE_PLAIN_HTTP=1, local development only), chosen
// when the world starts; its guardians read their chain and price from the app, off the capture.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { hex } from '@scure/base';
import {
  HEALTH_MAX_BYTES,
  readPublic,
  verifySet,
  type GuardianSet,
  type Member,
} from '@unit/guardian-net';
import type { Harness } from '../guardian/harness';
import { startTestApp, type RunningApp } from '../support';
import { appHarness, appReadingFlags, quorumAt } from './signer-harness';
import { dealNetworkDir } from '../../../../packages/guardian-net/test/dealt-at';
import {
  CLI,
  freePorts,
  kill9,
  run,
  type Proc,
} from '../../../../packages/guardian-net/test/harness';

const PLAIN_ENV = 'UNIT_GUARDIAN_INSECURE_PLAIN_HTTP';

/** A TCP relay from `port` to `target` on loopback that keeps each direction of each connection. */
export interface Relay {
  /** every stream seen so far: one per direction of each connection, in order */
  streams(): Buffer[];
  close(): void;
}

export async function relay(port: number, target: number): Promise<Relay> {
  const streams: Buffer[][] = [];
  const server = net.createServer((client) => {
    const up: Buffer[] = [];
    const down: Buffer[] = [];
    streams.push(up, down);
    const guardian = net.connect(target, '127.0.0.1');
    client.on('data', (b: Buffer) => (up.push(b), guardian.write(b)));
    guardian.on('data', (b: Buffer) => (down.push(b), client.write(b)));
    client.on('close', () => guardian.destroy());
    guardian.on('close', () => client.destroy());
    client.on('error', () => guardian.destroy());
    guardian.on('error', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', () => resolve()));
  return {
    streams: () => streams.map((s) => Buffer.concat(s)),
    close: () => server.close(),
  };
}

export interface CaptureWorld {
  app: RunningApp;
  set: GuardianSet;
  h: Harness;
  /** every stream the relays recorded so far */
  streams(): Buffer[];
  close(): Promise<void>;
}

/** Until guardian `m` answers /v1/health (pinned to its identity key over https) with a fresh price. */
async function priceFresh(m: Member, proc: Proc): Promise<void> {
  const deadline = Date.now() + 45_000;
  for (;;) {
    const health = await readPublic(m, '/v1/health', { timeoutMs: 5_000, maxBytes: HEALTH_MAX_BYTES }).catch(() => null); // prettier-ignore
    if ((health?.body as { priceFresh?: boolean } | null)?.priceFresh) return;
    if (Date.now() > deadline)
      throw new Error(`guardian ${m.id}: no fresh price\n${proc.output()}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** The world over TLS, or over plain HTTP when `plain` (the local-development flag). */
export async function startCaptureWorld(plain: boolean): Promise<CaptureWorld> {
  const before = process.env[PLAIN_ENV];
  // Read by `guardian dkg` and `start` (the processes inherit it): the one switch between the two.
  if (plain) process.env[PLAIN_ENV] = '1';
  else delete process.env[PLAIN_ENV];
  const dir = mkdtempSync(join(tmpdir(), 'guardian-capture-'));
  const relays: Relay[] = [];
  const procs: Proc[] = [];
  let app: RunningApp | undefined;
  const close = async () => {
    await Promise.all(procs.map((p) => kill9(p)));
    relays.forEach((r) => r.close());
    await app?.stop();
    rmSync(dir, { recursive: true, force: true });
    if (before === undefined) delete process.env[PLAIN_ENV];
    else process.env[PLAIN_ENV] = before;
  };
  try {
    const [urlBase, listenBase] = [await freePorts(3), await freePorts(3)];
    dealNetworkDir(dir, 3, 2, urlBase, plain ? 'http' : 'https');
    const set = verifySet(JSON.parse(readFileSync(join(dir, 'guardian-set.json'), 'utf8')));
    app = await startTestApp({ GUARDIAN_NETWORK: 'external', GUARDIAN_DIR: dir });
    for (const m of set.members) {
      relays.push(await relay(Number(new URL(m.url).port), listenBase + m.id - 1));
      const args = ['start', '--id', `${m.id}`, '--dir', join(dir, `guardian-${m.id}`)];
      const flags = ['--port', `${listenBase + m.id - 1}`, '--policy', 'vault', ...appReadingFlags(app.url)]; // prettier-ignore
      procs.push(run(CLI, [...args, ...flags]));
    }
    await Promise.all(set.members.map((m, i) => priceFresh(m, procs[i]!)));
    await quorumAt(app);
    const h = appHarness(app, hex.decode(set.groupKey!));
    return { app, set, h, streams: () => relays.flatMap((r) => r.streams()), close };
  } catch (error) {
    await close();
    throw error;
  }
}

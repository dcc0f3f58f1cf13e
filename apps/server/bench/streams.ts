// The live screens' figures (`npm run bench:streams -w @unit/server`, and part of `npm run bench`):
// ten thousand GET /api/events held open on one instance by a client process of their own
// (stream-clients.ts), what each costs the app in memory, how long a price tick takes to reach
// every one of them, and how /api/health answers meanwhile. With a PostgreSQL (TEST_DATABASE_URL,
// as `eval "$(bash scripts/ensure-postgres.sh)"` sets it), two instances on one schema hold half
// the streams each, and one tick on the first must reach both halves (cluster/bus.ts: NOTIFY).
import { fork, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { openStore } from '../src/store';
import type { AppExtras } from './children';
import { askHealth, startChild, verdict, type Child, type Figure } from './measure';
import { migratedDatabase } from './seed';
import type { Arrivals, Opened, ToClients } from './stream-clients';

/** The goal's ten thousand; BENCH_STREAMS sets fewer for a trial run (the goals stay). */
export const LIVE_SCREENS = Number(process.env.BENCH_STREAMS) || 10_000;
/** Ticks sent while the streams are open, one at a time; every stream's arrival counts. */
const TICKS = 5;
/** How long a tick may take before a stream counts as not reached. */
const WAIT_MS = 10_000;

const CLIENTS = path.join(path.dirname(fileURLToPath(import.meta.url)), 'stream-clients.ts');

interface Clients {
  ask<T>(message: ToClients): Promise<T>;
  process: ChildProcess;
}

function startClients(): Promise<Clients> {
  const child = fork(CLIENTS, [], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('message', () => {
      const ask = <T>(message: ToClients) =>
        new Promise<T>((done) => {
          child.once('message', (reply: T) => done(reply));
          child.send(message);
        });
      resolve({ ask, process: child });
    });
  });
}

const quantile = (sorted: number[], q: number) =>
  sorted.length === 0
    ? Infinity
    : sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]!;

/** One tick on `via`: when it reached each stream, in ms after it was asked for (-1: never). */
async function tickOnce(via: Child, clients: Clients): Promise<Arrivals & { ms: number[] }> {
  await clients.ask({ cmd: 'arm' });
  const sent = Date.now();
  await via.ask({ cmd: 'tick' });
  const arrivals = await clients.ask<Arrivals>({ cmd: 'collect', waitMs: WAIT_MS });
  return { ...arrivals, ms: arrivals.at.map((at) => (at < 0 ? -1 : at - sent)) };
}

const stop = (child: ChildProcess) =>
  new Promise<void>((resolve) => {
    child.removeAllListeners('exit');
    child.once('exit', () => resolve());
    child.send({ cmd: 'stop' });
    setTimeout(() => {
      child.kill();
      resolve();
    }, 5000).unref();
  });

const closeClients = (clients: Clients) =>
  new Promise<void>((resolve) => {
    clients.process.once('exit', () => resolve());
    clients.process.send({ cmd: 'close' });
    setTimeout(() => {
      clients.process.kill();
      resolve();
    }, 5000).unref();
  });

async function oneInstance(root: string): Promise<{ figures: Figure[]; lines: string[] }> {
  const dir = path.join(root, 'streams');
  await migratedDatabase(dir);
  const app = await startChild('app', dir);
  const clients = await startClients();
  try {
    const before = await app.ask<{ bytes: number }>({ cmd: 'memory' });
    const opened = await clients.ask<Opened>({ cmd: 'open', urls: [app.url], count: LIVE_SCREENS });
    const during = await app.ask<{ bytes: number; streams: number }>({ cmd: 'memory' });
    let ticking = true;
    const health = askHealth(app.url, () => !ticking);
    const delays: number[] = [];
    let missed = 0;
    let ended = 0;
    for (let i = 0; i < TICKS; i++) {
      const tick = await tickOnce(app, clients);
      for (const ms of tick.ms)
        if (ms < 0) missed++;
        else delays.push(ms);
      ended = tick.ended;
      await new Promise((resolve) => setTimeout(resolve, 300));
    }
    ticking = false;
    const healthTimes = await health;
    delays.sort((a, b) => a - b);
    const all = opened.opened === LIVE_SCREENS && during.streams === LIVE_SCREENS;
    const perStreamKB = (during.bytes - before.bytes) / during.streams / 1024;
    return {
      figures: [
        {
          name: `memory per open live stream, ${during.streams} open (KB)`,
          value: all ? perStreamKB : Infinity,
          goal: { max: 4 },
          noise: 0,
          unit: ' KB',
        },
        {
          name: `price tick to every one of ${opened.opened} streams, p99 of ${TICKS} ticks (ms)`,
          value: all && missed === 0 ? quantile(delays, 0.99) : Infinity,
          goal: { max: 1000 },
          noise: 0,
          unit: ' ms',
        },
        {
          name: `GET /api/health p99 of ${healthTimes.length}, ${opened.opened} streams open (ms)`,
          value: quantile(healthTimes, 0.99),
          goal: { max: 100 },
          noise: 0,
          unit: ' ms',
        },
      ],
      lines: [
        `  live streams: ${opened.opened} opened, ${opened.refused} refused, ${opened.failed.length ? `failed: ${opened.failed.join('; ')}` : 'none failed'}; ` +
          `tick median ${quantile(delays, 0.5).toFixed(0)} ms, worst ${quantile(delays, 1).toFixed(0)} ms, ` +
          `${missed} not reached, ${ended} ended; /api/health worst ${quantile(healthTimes, 1).toFixed(0)} ms`,
      ],
    };
  } finally {
    await closeClients(clients);
    await stop(app.process);
  }
}

/** Two instances on one PostgreSQL schema, half the streams on each, one tick on the first. */
async function twoInstances(
  root: string,
  databaseUrl: string,
): Promise<{ figures: Figure[]; lines: string[] }> {
  const schema = `bench_streams_${randomBytes(4).toString('hex')}`;
  // One data folder: the instances share the oracle's key file there, as a deployment would.
  const dir = path.join(root, 'cluster');
  fs.mkdirSync(dir, { recursive: true });
  const extras = JSON.stringify({
    env: { DATABASE_URL: databaseUrl },
    options: { databaseSchema: schema },
  } satisfies AppExtras);
  const children: Child[] = [];
  let clients: Clients | null = null;
  try {
    children.push(await startChild('app', dir, extras));
    children.push(await startChild('app', dir, extras));
    const [first, second] = children as [Child, Child];
    clients = await startClients();
    const opened = await clients.ask<Opened>({
      cmd: 'open',
      urls: [first.url, second.url],
      count: LIVE_SCREENS,
    });
    const tick = await tickOnce(first, clients);
    const reached = [0, 0];
    const held = [0, 0];
    const delays: number[] = [];
    tick.on.forEach((on, i) => {
      held[on]!++;
      if (tick.ms[i]! >= 0) {
        reached[on]!++;
        delays.push(tick.ms[i]!);
      }
    });
    delays.sort((a, b) => a - b);
    return {
      figures: [
        {
          name: `two instances on one PostgreSQL, ${held[0]} + ${held[1]} streams: missed by one tick`,
          value:
            opened.opened === LIVE_SCREENS
              ? held[0]! + held[1]! - reached[0]! - reached[1]!
              : Infinity,
          goal: { max: 0 },
          noise: 0,
          unit: '',
        },
      ],
      lines: [
        `  two instances: ${reached[0]}/${held[0]} and ${reached[1]}/${held[1]} streams reached, ` +
          `p99 ${quantile(delays, 0.99).toFixed(0)} ms (${opened.refused} refused)`,
      ],
    };
  } finally {
    if (clients) await closeClients(clients);
    await Promise.all(children.map((c) => stop(c.process)));
    const admin = await openStore({ databaseUrl });
    try {
      await admin.db.schema.dropSchema(schema).ifExists().cascade().execute();
    } finally {
      await admin.close();
    }
  }
}

/** The live screens' figures; the two-instance one only with a PostgreSQL to run them on. */
export async function streamFigures(): Promise<{ figures: Figure[]; lines: string[] }> {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'unit-bench-streams-'));
  try {
    const one = await oneInstance(root);
    const databaseUrl = process.env.TEST_DATABASE_URL;
    if (!databaseUrl) {
      one.lines.push(
        '  two instances on one PostgreSQL: not measured (no TEST_DATABASE_URL; ' +
          '`eval "$(bash scripts/ensure-postgres.sh)"` sets one)',
      );
      return one;
    }
    const two = await twoInstances(root, databaseUrl);
    return { figures: [...one.figures, ...two.figures], lines: [...one.lines, ...two.lines] };
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
}

// Run alone: prints the figures beside their goals and exits 1 when one is missed.
if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const { figures, lines } = await streamFigures();
  let failed = false;
  for (const f of figures) {
    const v = verdict(f);
    failed ||= v.failed;
    const goal = 'max' in f.goal ? `≤ ${f.goal.max}${f.unit}` : `≥ ${f.goal.min.toFixed(2)}`;
    const value = f.unit === '' ? f.value.toFixed(2) : `${f.value.toFixed(2)}${f.unit}`;
    console.log(`${f.name.padEnd(78)} ${value.padStart(10)}  ${goal.padEnd(9)} ${v.text}`);
  }
  for (const line of lines) console.log(line);
  process.exitCode = failed ? 1 : 0;
}

// The bench's child processes (bench.ts forks this file): the real app on a seeded data folder,
// with an event-loop monitor, and a bare Fastify 5 serving the same bytes; each answers the
// bench's questions over IPC.
import fs from 'node:fs';
import path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import Fastify from 'fastify';
import pino from 'pino';
import { buildApp, type BuildAppOptions } from '../src/app';
import { loadConfig } from '../src/config';

const DAY = 86_400;

export type ToChild =
  | { cmd: 'tick' }
  | { cmd: 'delay' }
  | { cmd: 'settled' }
  | { cmd: 'memory' }
  | { cmd: 'content'; price: string; vaults: string; historyPage: string; history24h: string }
  | { cmd: 'stop' };

/** What a bench asks of the app beyond its data folder (streams.ts: PostgreSQL, many streams). */
export interface AppExtras {
  env?: Record<string, string>;
  options?: Pick<BuildAppOptions, 'databaseSchema' | 'live'>;
}

async function serveApp(dataDir: string, extras: AppExtras = {}): Promise<void> {
  const config = loadConfig({
    DATA_DIR: dataDir,
    PORT: '0',
    BLOCK_INTERVAL: '3600000',
    PRICE_TICK: '86400000',
    LOG_LEVEL: 'warn',
    ...extras.env,
  });
  const unit = await buildApp(config, {
    logger: pino({ level: 'warn' }),
    telegramPolling: false,
    ...extras.options,
  });
  const url = await unit.app.listen({ port: 0, host: '127.0.0.1' });
  // Every pause of the loop from the first request on: the thinning of the year's raw prices
  // runs in the background at start, under the load that follows.
  const loop = watchLoop(path.basename(dataDir));
  process.on('message', (message: ToChild) => {
    void (async () => {
      switch (message.cmd) {
        case 'tick':
          await unit.oracle.tick();
          return process.send!({ ok: true });
        case 'delay':
          return process.send!(loop());
        case 'settled': {
          // The thinning is done when no raw point older than a day and a bit is left.
          const old = await unit.store.db
            .selectFrom('price_points')
            .select('timestamp')
            .where('timestamp', '<', Math.floor(Date.now() / 1000) - DAY - 3600)
            .limit(1)
            .executeTakeFirst();
          return process.send!({ settled: !old });
        }
        case 'memory': {
          // Live bytes after a full collection (the child runs with --expose-gc).
          for (let i = 0; i < 3; i++) (globalThis as { gc?: () => void }).gc?.();
          const m = process.memoryUsage();
          return process.send!({ bytes: m.heapUsed + m.external, streams: unit.live.count() });
        }
        case 'stop':
          await unit.close();
          process.exit(0);
      }
    })();
  });
  process.send!({ url });
}

export interface LoopPauses {
  /** the longest the loop waited, by the clock: includes time the OS gave the CPU to others */
  wallMs: number;
  /** the longest the loop was held by this process's own work (CPU time within one wait) */
  busyMs: number;
}

/**
 * CPU milliseconds of this process's main thread (Linux: /proc/self/task/<pid>/stat, in clock
 * ticks of 10 ms), or of the whole process elsewhere (GC and pool threads included: an over-count).
 */
function mainThreadCpuMs(): number {
  try {
    const stat = fs.readFileSync(`/proc/self/task/${process.pid}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces): utime is the 14th, stime the 15th.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    const { user, system } = process.cpuUsage();
    return (user + system) / 1000;
  }
}

/**
 * Watches the event loop: perf_hooks' delay histogram for the clock, and a 5 ms timer that
 * charges each wait with the CPU time the main thread spent in it. On a machine shared with other
 * work the clock also counts time the process sat waiting for a CPU; the CPU time does not.
 */
function watchLoop(label: string): () => LoopPauses {
  const delay = monitorEventLoopDelay({ resolution: 5 });
  delay.enable();
  let busyMs = 0;
  let lastAt = performance.now();
  let lastCpu = mainThreadCpuMs();
  setInterval(() => {
    const at = performance.now();
    const cpu = mainThreadCpuMs();
    // The tick counter has 10 ms steps: a wait is charged at most its own length.
    const busy = Math.min(at - lastAt, cpu - lastCpu);
    busyMs = Math.max(busyMs, busy);
    // BENCH_TRACE=1 names each long pause, to find what held the loop.
    if (process.env.BENCH_TRACE && busy > 20) {
      console.error(
        `busy ${busy.toFixed(0)} ms (clock ${(at - lastAt).toFixed(0)} ms) ${label} at ${new Date().toISOString().slice(11, 23)}`,
      );
    }
    lastAt = at;
    lastCpu = cpu;
  }, 5).unref();
  return () => ({ wallMs: delay.max / 1e6, busyMs });
}

/** A bare Fastify 5: no plugins, no hooks; the same JSON and the same bytes as the app. */
async function serveBare(): Promise<void> {
  const app = Fastify({ logger: false });
  let price: unknown = null;
  let vaults: unknown = null;
  let historyPage: unknown = null;
  let history24h = '';
  app.get('/api/bitcoin-price', async () => price);
  app.get('/api/vaults', async () => vaults);
  app.get('/api/vaults/:vaultId/history', async () => historyPage);
  app.get('/api/price-history', async (_request, reply) =>
    reply.type('application/json; charset=utf-8').send(history24h),
  );
  const url = await app.listen({ port: 0, host: '127.0.0.1' });
  const loop = watchLoop('bare');
  process.on('message', (message: ToChild) => {
    if (message.cmd === 'delay') process.send!(loop());
    if (message.cmd === 'content') {
      price = JSON.parse(message.price);
      vaults = JSON.parse(message.vaults);
      historyPage = JSON.parse(message.historyPage);
      history24h = message.history24h;
      process.send!({ ok: true });
    }
    if (message.cmd === 'stop') void app.close().then(() => process.exit(0));
  });
  process.send!({ url });
}

const [role, arg, extras] = process.argv.slice(2);
if (role === 'app') await serveApp(arg!, extras ? (JSON.parse(extras) as AppExtras) : {});
else if (role === 'bare') await serveBare();

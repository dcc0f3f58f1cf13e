// The bench's child processes (bench.ts forks this file): the real app on a seeded data folder,
// with an event-loop monitor, and a bare Fastify 5 serving the same bytes; each answers the
// bench's questions over IPC.
import path from 'node:path';
import Fastify from 'fastify';
import pino from 'pino';
import { buildApp, type BuildAppOptions } from '../src/app';
import { loadConfig } from '../src/config';
import { watchLoop } from './loop';

const DAY = 86_400;

export type ToChild =
  | { cmd: 'tick' }
  | { cmd: 'delay'; reset?: boolean }
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
          return process.send!(loop(message.reset));
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
    if (message.cmd === 'delay') process.send!(loop(message.reset));
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

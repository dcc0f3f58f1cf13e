// `npm run bench -w @unit/server`: the figures of issue 13, each a ratio measured in this run with
// its goal beside it. It seeds its own databases in a temp folder (a fresh one with 1k history
// records; a year's one with 1M records and a year of 30 s price ticks), starts the real app on
// each and a bare Fastify 5 in child processes, loads them with autocannon from here, and exits 1
// when a figure misses its goal by more than this machine's noise (measured: every load runs 3 times).
import { fork, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import autocannon from 'autocannon';
import SQLite from 'better-sqlite3';
import Fastify from 'fastify';
import pino from 'pino';
import { buildApp } from '../src/app';
import { loadConfig } from '../src/config';
import { migrateToLatest, openStore, insertVault } from '../src/store';
import { devnetMigrations } from '../src/devnet/migrations';
import { guardianMigrations } from '../src/guardian';
import { CLOSE_INTERVALS } from '../src/store/prices';
import { MAX_BUFFERED_BYTES } from '../src/http/events';
import { exportsUnderLoad, openLiveStreams } from './load';

const SELF = fileURLToPath(import.meta.url);
const DAY = 86_400;
const YEAR_RECORDS = 1_000_000;
const FRESH_RECORDS = 1_000;
/** Issue 24: ten clients export a history this long at once; a thousand live streams open. */
const EXPORT_RECORDS = 200_000;
const EXPORT_CLIENTS = 10;
const LIVE_STREAMS = 1_000;
const TICK_SECONDS = 30;
const LOAD_SECONDS = 2;
const CONNECTIONS = 8;
/** A figure fails only when it misses its goal by more than the noise, and at least by this. */
const MIN_NOISE = 0.1;
const VAULT_ID = 'be'.repeat(32);

// ---------------------------------------------------------------------------------------------
// Child processes: the real app (with an event-loop delay monitor) and the bare Fastify.

type ToChild =
  | { cmd: 'tick' }
  | { cmd: 'delay' }
  | { cmd: 'settled' }
  | { cmd: 'memory' }
  | { cmd: 'content'; price: string; history24h: string }
  | { cmd: 'stop' };

async function serveApp(dataDir: string): Promise<void> {
  const config = loadConfig({
    DATA_DIR: dataDir,
    PORT: '0',
    BLOCK_INTERVAL: '3600000',
    PRICE_TICK: '86400000',
    LOG_LEVEL: 'warn',
  });
  const unit = await buildApp(config, { logger: pino({ level: 'warn' }), telegramPolling: false });
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

interface LoopPauses {
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
  let history24h = '';
  app.get('/api/bitcoin-price', async () => price);
  app.get('/api/price-history', async (_request, reply) =>
    reply.type('application/json; charset=utf-8').send(history24h),
  );
  const url = await app.listen({ port: 0, host: '127.0.0.1' });
  const loop = watchLoop('bare');
  process.on('message', (message: ToChild) => {
    if (message.cmd === 'delay') process.send!(loop());
    if (message.cmd === 'content') {
      price = JSON.parse(message.price);
      history24h = message.history24h;
      process.send!({ ok: true });
    }
    if (message.cmd === 'stop') void app.close().then(() => process.exit(0));
  });
  process.send!({ url });
}

// ---------------------------------------------------------------------------------------------
// Seeding: one prepared statement, big transactions.

async function migratedDatabase(dataDir: string): Promise<string> {
  const file = path.join(dataDir, 'unit.db');
  const store = await openStore({ file });
  await migrateToLatest(store.db, { ...devnetMigrations, ...guardianMigrations });
  await insertVault(store.db, {
    vault_id: VAULT_ID,
    vault_tag: 'bench',
    vault_pubkey: 'bf'.repeat(32),
    name: 'Bench vault',
    creation_account: 'tb1qbench',
    runes_account: 'tb1pbench',
    btc_locked: 100_000_000,
    unit_borrowed: 1_000_000,
    vault_txid: 'bd'.repeat(32),
    vault_vout: 0,
    threshold_cents: 0,
    stamp: 0,
    status: 'active',
    created_at: 0,
  });
  await store.close();
  return file;
}

/** `count` records spread evenly over the last year, all confirmed. */
function seedHistory(file: string, count: number, now: number): void {
  const db = new SQLite(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = OFF');
  const insert = db.prepare(
    `insert into vault_history (vault_id, timestamp, action, btc_amt, unit_amt, vault_amount,
       amount_borrowed, oracle_price, transaction_id, utxo, utxo_script, liquidation_hash,
       liquidation_threshold, confirmed)
     values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, null, null, 1)`,
  );
  const start = now - 365 * DAY;
  const step = (365 * DAY) / count;
  const script = '5120' + 'ab'.repeat(32);
  const batch = db.transaction((from: number, to: number) => {
    for (let i = from; i < to; i++) {
      const txid = i.toString(16).padStart(64, '0');
      insert.run(
        VAULT_ID,
        Math.floor(start + i * step),
        i === 0 ? 'o' : i % 2 ? 'd' : 'b',
        10_000 + (i % 1000),
        i % 2 ? 0 : 100 + (i % 50),
        100_000_000 + i,
        1_000_000 + i,
        95_000 + (i % 1000),
        txid,
        `${txid}:0`,
        script,
      );
    }
  });
  for (let i = 0; i < count; i += 100_000) batch(i, Math.min(count, i + 100_000));
  db.close();
}

/** A year of 30 s ticks ending now, with their bucket closes, as a year of the oracle leaves them. */
function seedPrices(file: string, now: number): number {
  const db = new SQLite(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = OFF');
  const point = db.prepare('insert into price_points (timestamp, price_cents) values (?, ?)');
  const close = db.prepare(
    `insert into price_closes (interval_seconds, bucket, timestamp, price_cents)
     values (?, ?, ?, ?)
     on conflict (interval_seconds, bucket) do update
       set timestamp = excluded.timestamp, price_cents = excluded.price_cents`,
  );
  const end = Math.floor(now / TICK_SECONDS) * TICK_SECONDS;
  let cents = 9_500_000;
  let count = 0;
  const batch = db.transaction((from: number, to: number) => {
    for (let t = from; t < to && t <= end; t += TICK_SECONDS) {
      cents = Math.max(100_000, cents + ((t * 7919) % 2001) - 1000);
      point.run(t, cents);
      count++;
      for (const seconds of CLOSE_INTERVALS) close.run(seconds, t - (t % seconds), t, cents);
    }
  });
  const start = end - 365 * DAY;
  for (let t = start; t <= end; t += 100_000 * TICK_SECONDS) batch(t, t + 100_000 * TICK_SECONDS);
  db.close();
  return count;
}

// ---------------------------------------------------------------------------------------------
// Driving the children.

interface Child {
  url: string;
  ask<T>(message: ToChild): Promise<T>;
  process: ChildProcess;
}

function startChild(role: string, ...args: string[]): Promise<Child> {
  const child = fork(SELF, [role, ...args], {
    execArgv: ['--import', 'tsx', '--expose-gc'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`${role} exited with ${code}`)));
    child.once('message', (m: { url: string }) => {
      const ask = <T>(message: ToChild) =>
        new Promise<T>((done) => {
          child.once('message', (reply: T) => done(reply));
          child.send(message);
        });
      resolve({ url: m.url, ask, process: child });
    });
  });
}

/** Requests per second over LOAD_SECONDS; every answer must be a 200. */
async function throughput(url: string, paths: string[]): Promise<number> {
  const result = await autocannon({
    url,
    connections: CONNECTIONS,
    duration: LOAD_SECONDS,
    requests: paths.map((p) => ({ method: 'GET', path: p })),
    headers: { 'accept-encoding': 'identity' },
  });
  if (result.non2xx > 0 || result.errors > 0) {
    throw new Error(`${url}${paths[0]}: ${result.non2xx} non-2xx, ${result.errors} errors`);
  }
  return result.requests.average;
}

interface Figure {
  name: string;
  value: number;
  /** the ratio must be at most (max) or at least (min) the goal */
  goal: { max: number } | { min: number };
  noise: number;
  unit: string;
}

/**
 * Throughput of a against b, each loaded three times in turn (a b a b a b): the ratio of the best
 * runs (the least disturbed by other work on the machine), and the noise as the larger spread
 * between one side's runs.
 */
async function compare(
  a: () => Promise<number>,
  b: () => Promise<number>,
): Promise<{ ratio: number; noise: number }> {
  const as: number[] = [];
  const bs: number[] = [];
  for (let round = 0; round < 3; round++) {
    as.push(await a());
    bs.push(await b());
  }
  const spread = (xs: number[]) => (Math.max(...xs) - Math.min(...xs)) / Math.max(...xs);
  return { ratio: Math.max(...as) / Math.max(...bs), noise: Math.max(spread(as), spread(bs)) };
}

/** Median milliseconds of a GET right after a tick (the cache is cold every time). */
async function uncachedLatency(child: Child, pathname: string, rounds: number): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < rounds; i++) {
    await child.ask({ cmd: 'tick' });
    const started = performance.now();
    const res = await fetch(child.url + pathname);
    await res.arrayBuffer();
    times.push(performance.now() - started);
    if (res.status !== 200) throw new Error(`${pathname}: ${res.status}`);
  }
  return times.sort((x, y) => x - y);
}

const median = (xs: number[]) => xs[Math.floor(xs.length / 2)]!;

async function pageCursor(child: Child, pages: number): Promise<string> {
  let before = '';
  for (let i = 0; i < pages; i++) {
    const res = await fetch(`${child.url}/api/vaults/${VAULT_ID}/history?limit=100${before}`);
    const body = (await res.json()) as { next: string | null };
    if (!body.next) break;
    before = `&before=${body.next}`;
  }
  return before;
}

/** The web assets: index.html revalidated, every asset it loads compressed and immutable. */
async function checkAssets(url: string): Promise<{ ok: boolean; detail: string }> {
  const page = await fetch(url + '/', { headers: { 'accept-encoding': 'br, gzip' } });
  const html = await page.text();
  if (page.status !== 200 || !html.includes('<script')) {
    return { ok: false, detail: 'web app not built: run `npm run build` first' };
  }
  const problems: string[] = [];
  if (page.headers.get('cache-control') !== 'no-cache') {
    problems.push(`index.html cache-control ${page.headers.get('cache-control')}`);
  }
  const assets = [...html.matchAll(/(?:src|href)="(\/assets\/[^"]+)"/g)].map((m) => m[1]!);
  let raw = 0;
  let sent = 0;
  for (const asset of assets) {
    const size = fs.statSync(path.join(REPO_WEB_DIST, asset)).size;
    const compressed = await fetch(url + asset, { headers: { 'accept-encoding': 'br, gzip' } });
    const body = await compressed.arrayBuffer();
    raw += size;
    const encoding = compressed.headers.get('content-encoding');
    const cache = compressed.headers.get('cache-control') ?? '';
    // precompress.mjs leaves files under 1 KB alone: their headers outweigh the saving.
    const small = size < 1024;
    if (encoding !== 'br' && !small) problems.push(`${asset} content-encoding ${encoding}`);
    if (!cache.includes('immutable') || !cache.includes('max-age=31536000')) {
      problems.push(`${asset} cache-control ${cache}`);
    }
    const gz = await fetch(url + asset, { headers: { 'accept-encoding': 'gzip' } });
    await gz.arrayBuffer();
    if (gz.headers.get('content-encoding') !== 'gzip' && !small) {
      problems.push(`${asset} without gzip`);
    }
    // fetch decodes the body: the bytes on the wire are the content-length.
    sent += Number(compressed.headers.get('content-length') ?? body.byteLength);
  }
  if (assets.length === 0) problems.push('index.html loads no /assets/');
  const detail = `${assets.length} entry assets, ${(raw / 1024).toFixed(0)} KB sent as ${(sent / 1024).toFixed(0)} KB brotli`;
  return { ok: problems.length === 0, detail: problems.length ? problems.join('; ') : detail };
}

const REPO_WEB_DIST = path.resolve(path.dirname(SELF), '../../web/dist');

function verdict(f: Figure): { text: string; failed: boolean } {
  const tolerance = Math.max(f.noise, MIN_NOISE);
  if ('max' in f.goal) {
    if (f.value <= f.goal.max) return { text: 'ok', failed: false };
    const failed = f.value > f.goal.max * (1 + tolerance);
    return { text: failed ? 'MISSED' : 'within noise', failed };
  }
  if (f.value >= f.goal.min) return { text: 'ok', failed: false };
  const failed = f.value < f.goal.min * (1 - tolerance);
  return { text: failed ? 'MISSED' : 'within noise', failed };
}

async function main(): Promise<void> {
  const started = performance.now();
  const since = () =>
    `${((performance.now() - started) / 1000).toFixed(1)} s` +
    (process.env.BENCH_TRACE ? ` (${new Date().toISOString().slice(11, 23)})` : '');
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'unit-bench-'));
  const children: Child[] = [];
  try {
    const now = Math.floor(Date.now() / 1000);
    const freshDir = path.join(root, 'fresh');
    const yearDir = path.join(root, 'year');
    const exportDir = path.join(root, 'export');
    const freshFile = await migratedDatabase(freshDir);
    const yearFile = await migratedDatabase(yearDir);
    seedHistory(await migratedDatabase(exportDir), EXPORT_RECORDS, now);
    seedHistory(freshFile, FRESH_RECORDS, now);
    seedHistory(yearFile, YEAR_RECORDS, now);
    const ticks = seedPrices(yearFile, now);
    console.log(
      `seeded ${YEAR_RECORDS.toLocaleString('en-US')} history records and ` +
        `${ticks.toLocaleString('en-US')} price ticks in ${since()}`,
    );

    const [fresh, year, bare, exporter] = await Promise.all([
      startChild('app', freshDir),
      startChild('app', yearDir),
      startChild('bare'),
      startChild('app', exportDir),
    ]);
    children.push(fresh, year, bare, exporter);
    console.log(`servers up at ${since()}`);

    const history = (cursor: string) => `/api/vaults/${VAULT_ID}/history?limit=20${cursor}`;
    const points = `/api/vaults/${VAULT_ID}/points?timePeriod=1y`;
    // Under load while the year's database thins its raw prices (the upgrade's background work).
    const yearDeep = await pageCursor(year, 50);
    for (let i = 0; i < 60; i++) {
      await throughput(year.url, [
        history(''),
        history(yearDeep),
        points,
        '/api/price-history?timePeriod=1y',
        '/api/bitcoin-price',
      ]);
      if ((await year.ask<{ settled: boolean }>({ cmd: 'settled' })).settled) break;
    }
    console.log(`year's raw prices thinned under load at ${since()}`);

    const figures: Figure[] = [];
    // A page at the newest end and one 5,000 records deep, cycled.
    const freshDeep = await pageCursor(fresh, 5);
    const historyPages = await compare(
      () => throughput(fresh.url, [history(''), history(freshDeep)]),
      () => throughput(year.url, [history(''), history(yearDeep)]),
    );
    figures.push({
      name: 'GET history page, 1M records vs 1k (time)',
      value: historyPages.ratio,
      goal: { max: 2 },
      noise: historyPages.noise,
      unit: '×',
    });
    const pointsRatio = await compare(
      () => throughput(fresh.url, [points]),
      () => throughput(year.url, [points]),
    );
    figures.push({
      name: 'GET points?timePeriod=1y, 1M records vs 1k (time)',
      value: pointsRatio.ratio,
      goal: { max: 2 },
      noise: pointsRatio.noise,
      unit: '×',
    });
    const yearTimes = await uncachedLatency(year, '/api/price-history?timePeriod=1y', 40);
    const freshTimes = await uncachedLatency(fresh, '/api/price-history?timePeriod=1y', 40);
    const yearTimes2 = await uncachedLatency(year, '/api/price-history?timePeriod=1y', 40);
    const priceSpread =
      Math.abs(median(yearTimes) - median(yearTimes2)) /
      Math.max(median(yearTimes), median(yearTimes2));
    figures.push({
      name: 'GET price-history 1y after a tick, a year of ticks vs fresh (time)',
      value: Math.min(median(yearTimes), median(yearTimes2)) / median(freshTimes),
      goal: { max: 3 },
      noise: priceSpread,
      unit: '×',
    });

    const price = await (await fetch(fresh.url + '/api/bitcoin-price')).text();
    const history24h = await (await fetch(fresh.url + '/api/price-history?timePeriod=24h')).text();
    await bare.ask({ cmd: 'content', price, history24h });
    const priceRatio = await compare(
      () => throughput(fresh.url, ['/api/bitcoin-price']),
      () => throughput(bare.url, ['/api/bitcoin-price']),
    );
    figures.push({
      name: 'GET bitcoin-price throughput vs bare Fastify 5',
      value: priceRatio.ratio,
      goal: { min: 0.7 },
      noise: priceRatio.noise,
      unit: '',
    });
    const dayRatio = await compare(
      () => throughput(fresh.url, ['/api/price-history?timePeriod=24h']),
      () => throughput(bare.url, ['/api/price-history?timePeriod=24h']),
    );
    figures.push({
      name: `GET price-history 24h throughput vs bare (${history24h.length} B)`,
      value: dayRatio.ratio,
      goal: { min: 0.7 },
      noise: dayRatio.noise,
      unit: '',
    });

    const pauses = await Promise.all(
      [year, fresh, bare].map((c) => c.ask<LoopPauses>({ cmd: 'delay' })),
    );
    const [yearPause, freshPause, barePause] = pauses as [LoopPauses, LoopPauses, LoopPauses];
    figures.push({
      name: 'worst event-loop pause of the app by its own work (ms)',
      value: Math.max(yearPause.busyMs, freshPause.busyMs),
      goal: { max: 50 },
      noise: 0,
      unit: ' ms',
    });
    // By the clock, printed and not judged: on a machine shared with other work it counts the time
    // the process waited for a CPU, as the bare server's own worst pause under its load shows.
    const clockPause = Math.max(yearPause.wallMs, freshPause.wallMs);
    const assets = await checkAssets(fresh.url);

    // Issue 24, on a server of its own (its pauses are not the figure above's).
    const load = await exportsUnderLoad(
      exporter.url,
      `/api/vaults/${VAULT_ID}/history.csv`,
      EXPORT_CLIENTS,
    );
    const whole = load.lines.every((n) => n === EXPORT_RECORDS + 1);
    const exporterPause = await exporter.ask<LoopPauses>({ cmd: 'delay' });
    figures.push({
      name: `GET /api/health, worst of ${load.healthChecks}, during ${load.completed}/${load.asked} CSV exports of 200k (ms)`,
      // Exports refused or cut short would make the figure easy: they count as a miss.
      value: load.completed === load.asked && whole ? load.healthWorstMs : Infinity,
      goal: { max: 100 },
      // The machine's own noise: the idle server's worst answer, in parts of the goal.
      noise: load.idleHealthWorstMs / 100,
      unit: ' ms',
    });
    const before = await exporter.ask<{ bytes: number }>({ cmd: 'memory' });
    const streams = await openLiveStreams(exporter.url, LIVE_STREAMS);
    const during = await exporter.ask<{ bytes: number; streams: number }>({ cmd: 'memory' });
    streams.close();
    const perStream = (during.bytes - before.bytes) / during.streams;
    figures.push({
      name: `memory per open live stream, ${during.streams} open (KB; + ≤ ${MAX_BUFFERED_BYTES / 1024} KB unsent)`,
      value: during.streams === LIVE_STREAMS ? perStream / 1024 : Infinity,
      goal: { max: 16 },
      noise: 0,
      unit: ' KB',
    });

    console.log('');
    console.log(`${'figure'.padEnd(68)} ${'measured'.padStart(9)}  ${'goal'.padEnd(8)} verdict`);
    let failed = false;
    for (const f of figures) {
      const v = verdict(f);
      failed ||= v.failed;
      const goal = 'max' in f.goal ? `≤ ${f.goal.max}${f.unit}` : `≥ ${f.goal.min.toFixed(2)}`;
      const value = f.unit === '' ? f.value.toFixed(2) : `${f.value.toFixed(2)}${f.unit}`;
      console.log(
        `${f.name.padEnd(68)} ${value.padStart(9)}  ${goal.padEnd(8)} ${v.text}` +
          (f.noise > 0 ? ` (noise ${(f.noise * 100).toFixed(0)}%)` : ''),
      );
    }
    console.log(
      `${'web assets: br/gzip, hashed immutable, index.html no-cache'.padEnd(68)} ` +
        `${(assets.ok ? 'yes' : 'no').padStart(9)}  ${'yes'.padEnd(8)} ${assets.ok ? 'ok' : 'MISSED'}`,
    );
    console.log(`  ${assets.detail}`);
    console.log(
      `worst event-loop pause by the clock: ${clockPause.toFixed(0)} ms (the bare server's, ` +
        `doing nothing but answer: ${barePause.wallMs.toFixed(0)} ms; the difference is the CPU ` +
        'this machine gave to other work)',
    );
    console.log(
      `  exports: ${load.completed} of ${load.asked} whole (${load.megabytes.toFixed(1)} MB) in ` +
        `${load.seconds.toFixed(1)} s; /api/health median ${load.healthMedianMs.toFixed(1)} ms, ` +
        `worst with no export ${load.idleHealthWorstMs.toFixed(1)} ms`,
    );
    // Printed, not judged: the judged figure is /api/health's answer above. The exporting app's own
    // longest hold of its loop says whether a miss there was the app's work or the machine's; it
    // counts main-thread CPU in 10 ms ticks, garbage collection included, and one collection of
    // the ~480 MB streamed varies from run to run (20 to 70 ms seen on this machine).
    console.log(
      `  the exporting app's longest hold of its own loop: ${exporterPause.busyMs.toFixed(0)} ms ` +
        '(main-thread CPU within one wait, garbage collection included)',
    );
    failed ||= !assets.ok;
    console.log(`\nbench finished in ${since()}`);
    process.exitCode = failed ? 1 : 0;
  } finally {
    await Promise.all(
      children.map(
        (c) =>
          new Promise<void>((resolve) => {
            c.process.removeAllListeners('exit');
            c.process.once('exit', () => resolve());
            c.process.send({ cmd: 'stop' });
            setTimeout(() => {
              c.process.kill();
              resolve();
            }, 5000).unref();
          }),
      ),
    );
    fs.rmSync(root, { recursive: true, force: true });
  }
}

const [role, arg] = process.argv.slice(2);
if (role === 'app') await serveApp(arg!);
else if (role === 'bare') await serveBare();
else
  await main().catch((err: unknown) => {
    console.error(err);
    process.exitCode = 1;
  });

// Driving the children: starting them, loading them with autocannon, comparing two servers' runs,
// and judging each figure against its goal and this machine's noise.
import { fork, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import autocannon from 'autocannon';
import type { ToChild } from './children';
import { VAULT_ID } from './seed';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const CHILD = path.join(HERE, 'children.ts');
const REPO_WEB_DIST = path.resolve(HERE, '../../web/dist');
const LOAD_SECONDS = 2;
const CONNECTIONS = 8;
/** A figure fails only when it misses its goal by more than the noise, and at least by this. */
const MIN_NOISE = 0.1;

export interface Child {
  url: string;
  ask<T>(message: ToChild): Promise<T>;
  process: ChildProcess;
}

export function startChild(role: string, ...args: string[]): Promise<Child> {
  const child = fork(CHILD, [role, ...args], {
    execArgv: [
      '--import',
      'tsx',
      '--expose-gc',
      // BENCH_PROF=<folder>: each child writes a CPU profile there when it is stopped.
      ...(process.env.BENCH_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROF}`] : []),
    ],
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

/** A request of a load: a path to GET, or a GET with headers of its own. */
export type LoadRequest =
  string | { method: 'GET'; path: string; headers?: Record<string, string> };

/** Requests per second over LOAD_SECONDS, cycling through `paths`; every answer must be a 200. */
export async function throughput(url: string, paths: LoadRequest[]): Promise<number> {
  const result = await autocannon({
    url,
    connections: CONNECTIONS,
    duration: LOAD_SECONDS,
    requests: paths.map((p) => (typeof p === 'string' ? { method: 'GET', path: p } : p)),
    headers: { 'accept-encoding': 'identity' },
  });
  if (result.non2xx > 0 || result.errors > 0) {
    throw new Error(
      `${url} ${JSON.stringify(paths[0])}: ${result.non2xx} non-2xx, ${result.errors} errors`,
    );
  }
  return result.requests.average;
}

export interface Figure {
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
export async function compare(
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
export async function uncachedLatency(
  child: Child,
  pathname: string,
  rounds: number,
): Promise<number[]> {
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

export const median = (xs: number[]) => xs[Math.floor(xs.length / 2)]!;

export async function pageCursor(child: Child, pages: number): Promise<string> {
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
export async function checkAssets(url: string): Promise<{ ok: boolean; detail: string }> {
  const page = await fetch(url + '/', { headers: { 'accept-encoding': 'br, gzip' } });
  const html = await page.text();
  if (page.status !== 200 || !html.includes('<script')) {
    return { ok: false, detail: 'web app not built: run `npm run build` first' };
  }
  const problems: string[] = [];
  // 'private, no-cache': the page carries its visitor's first data (src/http/first-page.ts)
  if (!(page.headers.get('cache-control') ?? '').split(/,\s*/).includes('no-cache')) {
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

export function verdict(f: Figure): { text: string; failed: boolean } {
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

/** Asks /api/health one after another, 20 ms apart, until `stop()` says so; their times in ms. */
export async function askHealth(baseUrl: string, stop: () => boolean): Promise<number[]> {
  const times: number[] = [];
  while (!stop()) {
    const at = performance.now();
    const res = await fetch(`${baseUrl}/api/health`);
    await res.arrayBuffer();
    if (res.status !== 200) throw new Error(`/api/health answered ${res.status}`);
    times.push(performance.now() - at);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return times.sort((a, b) => a - b);
}

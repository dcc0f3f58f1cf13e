// The load figures for `npm run bench -w @unit/server`: how /api/health answers while ten
// clients export a 200,000-record history as CSV at once. Each client connects from an address of its own (127.0.0.x: Linux routes all of
// 127/8 to loopback), as separate users would, so the per-client limits do not refuse them.
import http from 'node:http';
import { performance } from 'node:perf_hooks';
import { askHealth } from './measure';

/** One GET from `localAddress`, read to its end and thrown away; resolves to its status and size. */
function download(
  url: string,
  localAddress: string,
): Promise<{ status: number; bytes: number; lines: number }> {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { localAddress, agent: false }, (res) => {
      let bytes = 0;
      let lines = 0;
      res.on('data', (chunk: Buffer) => {
        bytes += chunk.length;
        for (let i = chunk.indexOf(10); i >= 0; i = chunk.indexOf(10, i + 1)) lines++;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, bytes, lines }));
      res.on('error', reject);
    });
    req.on('error', reject);
  });
}

export interface ExportLoad {
  /** Exports answered 200 and read to the end, of those asked for. */
  completed: number;
  asked: number;
  /** Lines of each completed export (header included). */
  lines: number[];
  megabytes: number;
  seconds: number;
  /** /api/health while they ran, in ms. */
  healthWorstMs: number;
  healthMedianMs: number;
  healthChecks: number;
  /** The worst of as many /api/health asked just before, with no export running. */
  idleHealthWorstMs: number;
}

/** `clients` concurrent exports of `csvPath`, with /api/health asked one after another meanwhile. */
export async function exportsUnderLoad(
  baseUrl: string,
  csvPath: string,
  clients: number,
): Promise<ExportLoad> {
  let idleChecks = 0;
  const idle = await askHealth(baseUrl, () => idleChecks++ >= 200);
  const started = performance.now();
  let running = true;
  const downloads = Promise.all(
    Array.from({ length: clients }, (_, i) => download(baseUrl + csvPath, `127.0.0.${i + 11}`)),
  ).finally(() => (running = false));
  const health = await askHealth(baseUrl, () => !running);
  const results = await downloads;
  const done = results.filter((r) => r.status === 200);
  return {
    completed: done.length,
    asked: clients,
    lines: done.map((r) => r.lines),
    megabytes: done.reduce((sum, r) => sum + r.bytes, 0) / 1e6,
    seconds: (performance.now() - started) / 1000,
    healthWorstMs: health[health.length - 1] ?? 0,
    healthMedianMs: health[Math.floor(health.length / 2)] ?? 0,
    healthChecks: health.length,
    idleHealthWorstMs: idle[idle.length - 1] ?? 0,
  };
}

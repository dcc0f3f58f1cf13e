// The API at the framework's limit: each hot read route of the app against a bare Fastify 5
// answering the same body (no plugins, no hooks, no database), loaded in turn in one run.
import fs from 'node:fs';
import autocannon from 'autocannon';
import type { Child, Figure } from './measure';
import { compare, throughput } from './measure';
import { VAULT_ID, VAULT_PUBKEY } from './seed';

/** The routes the app answers within a tenth of bare Fastify, and price history's own goal. */
const ROUTES = [
  { name: 'bitcoin-price', path: '/api/bitcoin-price', goal: 0.9 },
  { name: 'vaults?pubkey=', path: `/api/vaults?pubkey=${VAULT_PUBKEY}`, goal: 0.9 },
  { name: "a vault's history page", path: `/api/vaults/${VAULT_ID}/history?limit=20`, goal: 0.9 },
  { name: 'price-history 24h', path: '/api/price-history?timePeriod=24h', goal: 0.7 },
] as const;

async function body(app: Child, path: string): Promise<string> {
  const res = await fetch(app.url + path);
  if (res.status !== 200) throw new Error(`${path}: ${res.status}`);
  return res.text();
}

/** The main thread's CPU nanoseconds of a child (Linux), or null elsewhere. */
function childCpuNs(child: Child): number | null {
  const pid = child.process.pid;
  try {
    return Number(fs.readFileSync(`/proc/${pid}/task/${pid}/schedstat`, 'utf8').split(' ')[0]);
  } catch {
    return null;
  }
}

/**
 * Microseconds of the child's main-thread CPU per answer of `path`, the least of three runs of
 * 3,000 requests: what other work on a shared machine disturbs far less than throughput.
 */
async function cpuPerAnswer(child: Child, path: string): Promise<number | null> {
  let least = Infinity;
  for (let round = 0; round < 3; round++) {
    const before = childCpuNs(child);
    const result = await autocannon({
      url: child.url,
      connections: 8,
      amount: 3_000,
      requests: [{ method: 'GET', path }],
      headers: { 'accept-encoding': 'identity' },
    });
    const after = childCpuNs(child);
    if (before === null || after === null) return null;
    least = Math.min(least, (after - before) / 1000 / result.requests.total);
  }
  return least;
}

/** Hands the bare server the app's own answers, then loads each route on both in turn. */
export async function frameworkFigures(
  app: Child,
  bare: Child,
): Promise<{ figures: Figure[]; lines: string[] }> {
  const bodies = await Promise.all(ROUTES.map((r) => body(app, r.path)));
  const [price, vaults, historyPage, history24h] = bodies as [string, string, string, string];
  await bare.ask({ cmd: 'content', price, vaults, historyPage, history24h });
  const figures: Figure[] = [];
  const lines: string[] = [];
  for (const route of ROUTES) {
    const { ratio, noise } = await compare(
      () => throughput(app.url, [route.path]),
      () => throughput(bare.url, [route.path]),
    );
    const size = (await body(app, route.path)).length;
    figures.push({
      name: `GET ${route.name} throughput vs bare Fastify 5 (${size} B)`,
      value: ratio,
      goal: { min: route.goal },
      noise,
      unit: '',
    });
    // Printed, not judged: the same comparison by CPU time per answer.
    const [ours, theirs] = [
      await cpuPerAnswer(app, route.path),
      await cpuPerAnswer(bare, route.path),
    ];
    if (ours !== null && theirs !== null)
      lines.push(
        `  ${route.name}: ${ours.toFixed(1)} µs of the app's main thread per answer, ` +
          `${theirs.toFixed(1)} µs of bare Fastify's (${(theirs / ours).toFixed(2)} of the app's)`,
      );
  }
  return { figures, lines };
}

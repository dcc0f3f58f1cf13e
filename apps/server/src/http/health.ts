// /healthz and /readyz for load balancers and orchestrators (issue 21, item 6): the readiness probe
// checks the database, the chain service and a fresh price together, each under a time-out, and
// caches its answer; http/metrics.ts mounts them with the metrics.
import type { FastifyInstance } from 'fastify';
import { sql, type Kysely } from 'kysely';
import type { Chain } from '../chain/port';
import type { Oracle } from '../oracle/oracle';
import type { Database } from '../store/schema';

/** Longest a readiness check or a scrape-time figure may take before it counts as failing. */
export const CHECK_TIMEOUT_MS = 2_000;
/** A readiness answer is reused this long, so /readyz cannot be used to flood a chain service. */
const READY_CACHE_MS = 2_000;

class TimeoutError extends Error {}

/** `work`, or a rejection after `ms`; the timer never keeps the process up. */
export function withTimeout<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new TimeoutError(`no answer within ${ms} ms`)), ms);
    timer.unref();
  });
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}

export interface ReadinessDeps {
  db: Kysely<Database>;
  chain: Pick<Chain, 'tip'>;
  oracle: Pick<Oracle, 'latest' | 'stale'>;
}

export type CheckResult = 'ok' | 'failing' | 'timeout';
export interface Readiness {
  ready: boolean;
  checks: { database: CheckResult; chain: CheckResult; price: CheckResult };
}

async function check(work: () => Promise<unknown>): Promise<CheckResult> {
  try {
    await withTimeout(work(), CHECK_TIMEOUT_MS);
    return 'ok';
  } catch (err) {
    return err instanceof TimeoutError ? 'timeout' : 'failing';
  }
}

/** Database, chain service and a fresh price, checked together; one round at a time, cached. */
export function readinessProbe(deps: ReadinessDeps): () => Promise<Readiness> {
  let last: { at: number; result: Promise<Readiness> } | null = null;
  const run = async (): Promise<Readiness> => {
    const [database, chain] = await Promise.all([
      check(() => sql`select 1`.execute(deps.db)),
      check(() => deps.chain.tip()),
    ]);
    const price: CheckResult = deps.oracle.latest() && !deps.oracle.stale ? 'ok' : 'failing';
    return {
      ready: database === 'ok' && chain === 'ok' && price === 'ok',
      checks: { database, chain, price },
    };
  };
  return () => {
    if (!last || Date.now() - last.at > READY_CACHE_MS) last = { at: Date.now(), result: run() };
    return last.result;
  };
}

/** GET /healthz (the process answers) and GET /readyz (it can serve: 200, else 503). */
export function registerHealthRoutes(app: FastifyInstance, ready: () => Promise<Readiness>): void {
  app.get('/healthz', async (_request, reply) =>
    reply.header('Cache-Control', 'no-store').send({ status: 'ok' }),
  );
  app.get('/readyz', async (_request, reply) => {
    const result = await ready();
    return reply
      .code(result.ready ? 200 : 503)
      .header('Cache-Control', 'no-store')
      .send({ status: result.ready ? 'ready' : 'not_ready', checks: result.checks });
  });
}

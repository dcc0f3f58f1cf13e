// /healthz and /readyz for load balancers and orchestrators: the readiness probe
// checks the database, the chain service, a fresh price and, with a guardian network, its price
// quorum together, each under a time-out, and caches its answer; http/metrics.ts mounts them.
import type { FastifyInstance } from 'fastify';
import { sql, type Kysely } from 'kysely';
import type { Chain } from '../chain/port';
import type { Oracle } from '../oracle/oracle';
import type { GuardiansOnline } from '../oracle/quorum';
import type { Database } from '../store/schema';
import { tableRoute } from './table-route';

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
  /** With a guardian network: the reach of its price quorum (oracle/quorum.ts). */
  guardians?: { guardiansOnline(): Promise<GuardiansOnline | null> } | null;
}

export type CheckResult = 'ok' | 'failing' | 'timeout';
export interface Readiness {
  ready: boolean;
  checks: {
    database: CheckResult;
    chain: CheckResult;
    price: CheckResult;
    guardians?: CheckResult;
  };
  /** Why each failing check fails, where there is more to say than its name. */
  reasons?: { guardians?: string };
}

/** The guardian network's check: at least t of its guardians answer with a fresh price. */
async function guardiansCheck(
  guardians: NonNullable<ReadinessDeps['guardians']>,
): Promise<{ result: CheckResult; reason?: string }> {
  let reach: GuardiansOnline | null;
  try {
    reach = await withTimeout(guardians.guardiansOnline(), CHECK_TIMEOUT_MS);
  } catch (err) {
    const result = err instanceof TimeoutError ? 'timeout' : 'failing';
    return { result, reason: 'the guardians did not answer in time' };
  }
  if (!reach) return { result: 'failing', reason: 'no round of guardian prices yet' };
  if (reach.online >= reach.t) return { result: 'ok' };
  return {
    result: 'failing',
    reason: `${reach.online} of the ${reach.n} guardians of set ${reach.version} answer with a fresh price; ${reach.t} are needed for the price quorum`,
  };
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
    const [database, chain, guardians] = await Promise.all([
      check(() => sql`select 1`.execute(deps.db)),
      check(() => deps.chain.tip()),
      deps.guardians ? guardiansCheck(deps.guardians) : null,
    ]);
    const price: CheckResult = deps.oracle.latest() && !deps.oracle.stale ? 'ok' : 'failing';
    const checks = {
      database,
      chain,
      price,
      ...(guardians ? { guardians: guardians.result } : {}),
    };
    return {
      ready: Object.values(checks).every((c) => c === 'ok'),
      checks,
      ...(guardians?.reason ? { reasons: { guardians: guardians.reason } } : {}),
    };
  };
  return () => {
    if (!last || Date.now() - last.at > READY_CACHE_MS) last = { at: Date.now(), result: run() };
    return last.result;
  };
}

/** GET /healthz (the process answers) and GET /readyz (it can serve: 200, else 503). */
export function registerHealthRoutes(app: FastifyInstance, ready: () => Promise<Readiness>): void {
  tableRoute(app, 'healthz', ({ reply }) => {
    reply.header('Cache-Control', 'no-store');
    return { status: 'ok' as const };
  });
  tableRoute(app, 'readyz', async ({ reply }) => {
    const result = await ready();
    reply.code(result.ready ? 200 : 503).header('Cache-Control', 'no-store');
    return {
      status: result.ready ? ('ready' as const) : ('not_ready' as const),
      checks: result.checks,
      ...(result.reasons ? { reasons: result.reasons } : {}),
    };
  });
}

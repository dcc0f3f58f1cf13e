// Prometheus metrics (prom-client) at GET /metrics, mounted with /healthz and /readyz (http/health.ts)
// for load balancers and orchestrators. Metrics are off unless METRICS_TOKEN (then /metrics on the app's
// port, behind `Authorization: Bearer <token>`) or METRICS_PORT (then on a port of their own, behind
// the token too when one is set) is configured. Each figure that needs the database or a chain
// service is read at scrape time under a time-out, so a scrape never hangs on a service that does.
import { timingSafeEqual } from 'node:crypto';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import type { Kysely } from 'kysely';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { Chain } from '../chain/port';
import type { LivePriceSource, PriceSource } from '../oracle/price-source';
import { isLivePriceSource } from '../oracle/price-source';
import type { PriceReading } from '@unit/guardian-net/price';
import type { Oracle } from '../oracle/oracle';
import { DomainError } from '../errors';
import type { RpcMethod } from '../rpc/json-rpc';
import type { Database } from '../store/schema';
import { heldTreasuryOutputs } from '../cosign/locks';
import { registerGuardianGauges, type GuardianReach } from './guardian-metrics';
import { tableRoute } from './table-route';
import type { LiveStreams } from './events';
import type { CsvExports } from './history-csv';
import {
  CHECK_TIMEOUT_MS,
  readinessProbe,
  registerHealthRoutes,
  withTimeout,
  type Readiness,
} from './health';

/** The treasury is read from the chain service at most this often. */
const TREASURY_CACHE_MS = 15_000;

export interface MetricsSources {
  db: Kysely<Database>;
  chain: Pick<Chain, 'unitOutputs'>;
  oracle: Pick<Oracle, 'latest' | 'stale'>;
  treasuryAddress: string;
  live: LiveStreams;
  exports: CsvExports;
  /** With a guardian network: its price quorum's reach (readiness and unit_guardians_online). */
  guardians?: GuardianReach | null;
}

/** The metrics of one app (a registry of its own: tests run several apps in one process). */
export class UnitMetrics {
  readonly registry = new Registry();
  private readonly requestSeconds: Histogram<'method' | 'route' | 'status_code'>;
  private readonly guardianRequests: Counter<'method' | 'outcome'>;
  private readonly feedFresh: Gauge<'feed'>;
  private readonly feedSpread: Gauge;
  private readonly sweepSeconds: Gauge;
  private sources: MetricsSources | null = null;
  private sweeping = false;
  /** The price time of the last finished sweep (unix seconds). */
  private sweptPriceTime: number | null = null;
  private treasury: {
    at: number;
    value: Promise<{ unit: number; free: number; all: number }>;
  } | null = null;

  constructor() {
    const registers = [this.registry];
    collectDefaultMetrics({ register: this.registry });
    this.requestSeconds = new Histogram({
      name: 'unit_http_request_duration_seconds',
      help: 'HTTP request latency by route template and status',
      labelNames: ['method', 'route', 'status_code'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers,
    });
    this.guardianRequests = new Counter({
      name: 'unit_guardian_requests_total',
      help: 'Guardian JSON-RPC calls by method and outcome (ok, or the error code)',
      labelNames: ['method', 'outcome'],
      registers,
    });
    this.feedFresh = new Gauge({
      name: 'unit_price_feed_fresh',
      help: "1 when the feed's answer in the last round was fresh, else 0",
      labelNames: ['feed'],
      registers,
    });
    this.feedSpread = new Gauge({
      name: 'unit_price_feed_spread_basis_points',
      help: 'Highest minus lowest fresh feed answer of the last round, in basis points of the lowest',
      registers,
    });
    this.sweepSeconds = new Gauge({
      name: 'unit_liquidation_sweep_duration_seconds',
      help: 'Seconds from the price point to the end of the last liquidation sweep on it',
      registers,
    });
    const self = () => this;
    new Gauge({
      name: 'unit_liquidation_sweep_lag_seconds',
      help: 'Seconds between the newest price and the price the last finished sweep ran on (this instance leads the sweep)',
      registers,
      collect() {
        const latest = self().sources?.oracle.latest();
        if (!self().sweeping || !latest) return this.reset();
        this.set(Math.max(0, latest.timestamp - (self().sweptPriceTime ?? 0)));
      },
    });
    new Gauge({
      name: 'unit_price_age_seconds',
      help: "Seconds since the oracle's latest price point; NaN while no price was ever read",
      registers,
      collect() {
        const latest = self().sources?.oracle.latest();
        // Unknown is NaN, Prometheus's convention where 0 would mislead (0 s reads as fresh).
        this.set(latest ? Math.max(0, Date.now() / 1000 - latest.timestamp) : NaN);
      },
    });
    registerGuardianGauges(this.registry, () => self().sources?.guardians);
    // Gauges read straight off the attached sources when scraped; nothing until they are attached.
    const sourceGauges: [name: string, help: string, read: (s: MetricsSources) => number][] = [
      [
        'unit_price_stale',
        '1 while the price may not be relied on (no quotes are signed), else 0',
        (s) => (s.oracle.stale ? 1 : 0),
      ],
      ['unit_live_streams', 'Open GET /api/events streams on this instance', (s) => s.live.count()],
      [
        'unit_live_stream_evictions',
        'Live streams closed so far to make room for a lighter holder',
        (s) => s.live.evictions(),
      ],
      [
        'unit_csv_exports_active',
        'History CSV exports running on this instance',
        (s) => s.exports.active(),
      ],
      [
        'unit_csv_exports_refused',
        'History CSV exports refused for the limits so far',
        (s) => s.exports.refused(),
      ],
    ];
    for (const [name, help, read] of sourceGauges) {
      new Gauge({
        name,
        help,
        registers,
        collect() {
          const s = self().sources;
          if (s) this.set(read(s));
        },
      });
    }
    new Gauge({
      name: 'unit_telegram_outbox_pending',
      help: 'Telegram messages waiting in the outbox',
      registers,
      async collect() {
        const db = self().sources?.db;
        if (!db) return;
        const row = await withTimeout(
          db
            .selectFrom('telegram_outbox')
            .select((eb) => eb.fn.countAll<number>().as('n'))
            .where('status', '=', 'pending')
            .executeTakeFirst(),
          CHECK_TIMEOUT_MS,
        ).catch(() => null);
        if (row) this.set(Number(row.n));
      },
    });
    const treasury = (pick: 'unit' | 'free' | 'all') =>
      async function (this: Gauge) {
        const value = await self()
          .readTreasury()
          .catch(() => null);
        if (value) this.set(value[pick]);
      };
    new Gauge({
      name: 'unit_treasury_unit_hundredths',
      help: "UNIT in the treasury's unspent outputs, in hundredths",
      registers,
      collect: treasury('unit'),
    });
    new Gauge({
      name: 'unit_treasury_outputs',
      help: "The treasury's unspent UNIT outputs",
      registers,
      collect: treasury('all'),
    });
    new Gauge({
      name: 'unit_treasury_free_outputs',
      help: "The treasury's unspent UNIT outputs not held by a request in flight",
      registers,
      collect: treasury('free'),
    });
  }

  /** What the scrape-time figures are read from, once the app has built them. */
  attach(sources: MetricsSources): void {
    this.sources = sources;
  }

  private readTreasury(): Promise<{ unit: number; free: number; all: number }> {
    const sources = this.sources;
    if (!sources) return Promise.reject(new Error('not attached'));
    if (this.treasury && Date.now() - this.treasury.at < TREASURY_CACHE_MS)
      return this.treasury.value;
    const value = withTimeout(
      (async () => {
        const [outputs, held] = await Promise.all([
          sources.chain.unitOutputs(sources.treasuryAddress),
          heldTreasuryOutputs(sources.db, Math.floor(Date.now() / 1000)),
        ]);
        const unspent = outputs.filter((o) => !o.spent);
        return {
          unit: unspent.reduce((sum, o) => sum + o.unit_amount, 0),
          all: unspent.length,
          free: unspent.filter((o) => !held.has(`${o.txid}:${o.vout}`)).length,
        };
      })(),
      CHECK_TIMEOUT_MS,
    );
    this.treasury = { at: Date.now(), value };
    // A failed read is tried again at the next scrape.
    value.catch(() => (this.treasury = null));
    return value;
  }

  /**
   * Times every request by its route template (never the raw URL: that would be unbounded): each
   * route gets a hook of its own that knows its template, and what matched no route is counted as
   * 'unmatched'. Callback hooks: an async one costs every answer a promise made and awaited.
   */
  instrument(app: FastifyInstance): void {
    const timer =
      (route: string) =>
      (request: FastifyRequest, reply: FastifyReply, done: () => void): void => {
        this.requestSeconds.observe(
          { method: request.method, route, status_code: String(reply.statusCode) },
          reply.elapsedTime / 1000,
        );
        done();
      };
    app.addHook('onRoute', (route) => {
      const hooks = route.onResponse;
      const own = Array.isArray(hooks) ? hooks : hooks ? [hooks] : [];
      route.onResponse = [...own, timer(route.url)];
    });
    const unmatched = timer('unmatched');
    app.addHook('onResponse', (request, reply, done) => {
      if (request.is404) unmatched(request, reply, done);
      else done();
    });
  }

  /** The guardian's methods, each call counted by its outcome. */
  countRpc(methods: Record<string, RpcMethod<unknown>>): Record<string, RpcMethod<unknown>> {
    return Object.fromEntries(
      Object.entries(methods).map(([name, method]) => [
        name,
        {
          params: method.params,
          handler: async (params, ctx) => {
            try {
              const result = await method.handler(params, ctx);
              this.guardianRequests.inc({ method: name, outcome: 'ok' });
              return result;
            } catch (err) {
              // The error codes are a closed set (api.ts ErrorCode): the labels stay bounded.
              const outcome = err instanceof DomainError ? err.code : 'error';
              this.guardianRequests.inc({ method: name, outcome });
              throw err;
            }
          },
        } satisfies RpcMethod<unknown>,
      ]),
    );
  }

  /** The price source, each live round's feeds and spread recorded. */
  observeFeeds<S extends PriceSource | LivePriceSource>(source: S): S {
    if (!isLivePriceSource(source)) return source;
    const read = source.read.bind(source);
    const observed: LivePriceSource = {
      name: source.name,
      live: true,
      read: async (): Promise<PriceReading> => {
        const reading = await read();
        const fresh: number[] = [];
        for (const answer of reading.answers) {
          this.feedFresh.set({ feed: answer.feed }, answer.priceCents === undefined ? 0 : 1);
          if (answer.priceCents !== undefined) fresh.push(answer.priceCents);
        }
        if (fresh.length >= 2) {
          const low = Math.min(...fresh);
          this.feedSpread.set(low > 0 ? ((Math.max(...fresh) - low) * 10_000) / low : 0);
        }
        return reading;
      },
    };
    return observed as S;
  }

  /** The liquidation sweep: whether this instance leads it, and each one finished. */
  sweepLeading(leading: boolean): void {
    this.sweeping = leading;
  }
  sweepDone(priceTime: number): void {
    this.sweptPriceTime = Math.max(this.sweptPriceTime ?? 0, priceTime);
    this.sweepSeconds.set(Math.max(0, Date.now() / 1000 - priceTime));
  }
}

/** Whether `header` is `Bearer <token>`, compared in constant time. */
export function bearerMatches(header: string | undefined, token: string): boolean {
  const given = Buffer.from(/^Bearer (.+)$/.exec(header ?? '')?.[1] ?? '');
  const wanted = Buffer.from(token);
  return given.length === wanted.length && timingSafeEqual(given, wanted);
}

/** GET /metrics on `app`, refused (401) without the token when there is one. */
export function registerMetricsRoute(
  app: FastifyInstance,
  metrics: UnitMetrics,
  token: string | null,
): void {
  tableRoute(app, 'metrics', async ({ request, reply }) => {
    if (token !== null && !bearerMatches(request.headers.authorization, token))
      return reply
        .code(401)
        .header('WWW-Authenticate', 'Bearer realm="metrics"')
        .send({ error: 'A valid metrics token is required', code: 'unauthorized' });
    const text = await metrics.registry.metrics();
    return reply.type(metrics.registry.contentType).header('Cache-Control', 'no-store').send(text);
  });
}

/** A server of its own for /metrics, /healthz and /readyz (METRICS_PORT). */
export async function startMetricsServer(
  metrics: UnitMetrics,
  ready: () => Promise<Readiness>,
  options: { host: string; port: number; token: string | null },
): Promise<{ url: string; close: () => Promise<void> }> {
  const server = Fastify({ logger: false, forceCloseConnections: true });
  registerMetricsRoute(server, metrics, options.token);
  registerHealthRoutes(server, ready);
  const url = await server.listen({ host: options.host, port: options.port });
  return { url, close: () => server.close() };
}

/** Metrics when configured (a token or a port), else null: nothing is counted. */
export function createMetrics(config: { metrics: { token: string | null; port: number | null } }) {
  const { token, port } = config.metrics;
  return token !== null || port !== null ? new UnitMetrics() : null;
}

/** The price source as is, or observed by the metrics when there are any. */
export const observeFeeds = <S extends PriceSource | LivePriceSource>(
  metrics: UnitMetrics | null,
  source: S,
): S => (metrics ? metrics.observeFeeds(source) : source);

/** The guardian's methods as is, or counted by the metrics when there are any. */
export const countRpc = (
  metrics: UnitMetrics | null,
  methods: Record<string, RpcMethod<unknown>>,
): Record<string, RpcMethod<unknown>> => (metrics ? metrics.countRpc(methods) : methods);

/**
 * Mounts /healthz and /readyz on the app, and the metrics where configured: /metrics on the app
 * behind the token, or a server of its own on METRICS_PORT. Resolves to that server's URL and
 * its stop, or null.
 */
export async function mountMetrics(
  app: FastifyInstance,
  metrics: UnitMetrics | null,
  config: { host: string; metrics: { token: string | null; port: number | null } },
  sources: MetricsSources & { chain: Pick<Chain, 'tip' | 'unitOutputs'> },
): Promise<{ url: string; close: () => Promise<void> } | null> {
  const ready = readinessProbe(sources);
  registerHealthRoutes(app, ready);
  if (!metrics) return null;
  metrics.attach(sources);
  const { token, port } = config.metrics;
  if (port === null) {
    registerMetricsRoute(app, metrics, token);
    return null;
  }
  return startMetricsServer(metrics, ready, { host: config.host, port, token });
}

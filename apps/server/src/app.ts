// Composition root: reads top to bottom. It opens the store and the cluster, does the first-start
// work (startup.ts), builds the chain, the guardian and the Telegram notifier, adds the leader jobs
// (jobs/), then creates the Fastify server (http/server.ts), registers its plugins (plugins/) and
// routes (http/, devnet/http.ts), and starts leading. Several instances may share
// one PostgreSQL: first-start work runs under a cluster-wide lock, the leader jobs run where their
// leadership lock is held, and events cross instances on the bus.
// A new plugin or route goes with the others below, in the order requests should meet it.
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { REPO_ROOT, type ServerConfig } from './config';
import { createLogger } from './logger';
import type { Store } from './store/open';
import type { GuardianKeys } from './store/keys';
import type { FailedClaim } from './store/repossession-race';
import type { Oracle } from './oracle/oracle';
import type { TelegramNotifier } from './notify/telegram';
import { registerTelegramRoutes } from './http/telegram-link';
import { createServer } from './http/server';
import { registerApiRoutes } from './http/api';
import { AnswerCache } from './http/answer-cache';
import { registerOrdIndexer } from './http/indexer-proxy';
import { registerClientErrorRoutes } from './http/client-errors';
import { sharedHitCounter } from './http/shared-rate-limits';
import { registerMissionRoutes } from './http/missions';
import { registerLedgerRoute } from './http/ledger';
import { appValidators } from './http/validator-agreement';
import { registerLiquidationRoutes } from './http/liquidation';
import { registerAuthRoutes, registerOAuthRoutes } from './http/auth';
import { publicOriginResolver } from './http/public-origin';
import { registerHistoryCsvRoute, type CsvExportLimits, type CsvExports } from './http/history-csv';
import type { NetworkRouteOptions } from './http/network-routes';
import { registerStatic } from './http/static';
import { countRpc, createMetrics, mountMetrics } from './http/metrics';
import { registerEventRoutes, type LiveStreamOptions, type LiveStreams } from './http/events';
import { AccountLinks } from './auth/oauth';
import type { Devnet } from './devnet/devnet';
import { registerDevnetRoutes } from './devnet/http';
import type { Chain } from './chain/port';
import { rememberedTipHeight } from './chain/tip-memory';
import { createGuardian, type Guardian } from './cosign';
import type { RpcLimits, RpcMethod } from './rpc/json-rpc';
import { openCluster, type Cluster, type EventBus } from './cluster';
import { announceVaultChange, announcingVaultActions } from './cluster/vault-changes';
import { whileGuardiansStart } from './network-client/starting-gate';
import {
  btcNetworkOf,
  firstStart,
  openAppStore,
  openChain,
  startupReindex,
  startNotifier,
  unitRuneIdOf,
} from './startup';
import type { ReindexResult } from './operator/reindex';
import type { LeaderJob } from './jobs/leader-job';
import { settlementQuote, termSettlementJob } from './jobs/term-settlement';
import { oracleTickJob, priceEvent } from './jobs/oracle-tick';
import { devnetMinerJob } from './jobs/devnet-miner';
import { telegramOutboxJob } from './jobs/telegram-outbox';
import { guardianRecoveryJob } from './jobs/guardian-recovery';
import { liquidationSweepJob } from './jobs/liquidation-sweep';
import { blockWatcherJob } from './jobs/block-watcher';
import { hardening } from './plugins/hardening';
import { guardianSocket } from './plugins/guardian-socket';

export interface BuildAppOptions {
  logger?: Logger;
  /** Where the built web app lives; default apps/web/dist. */
  webDistDir?: string;
  /** SQLite file; default `${dataDir}/unit.db`. */
  sqliteFile?: string;
  /** PostgreSQL schema to use (tests isolate themselves with one). */
  databaseSchema?: string;
  /** Raise the write limits for tests that legitimately write a lot; default from config. */
  writeLimitPerMinute?: number;
  devnetWriteLimitPerMinute?: number;
  telegramPolling?: boolean;
  telegramDrainIntervalMs?: number;
  telegramRetryDelayMs?: number;
  /** The /guardian socket's limits (rpc/json-rpc.ts DEFAULT_RPC_LIMITS); tests raise them. */
  guardianLimits?: Partial<RpcLimits>;
  /** How often an instance tries to take over the singleton jobs (PostgreSQL); default 3 s. */
  jobRetryMs?: number;
  /** How often the leader settles requests of instances that are gone (default 10 s). */
  recoveryIntervalMs?: number;
  /** Limits of GET /api/events. */
  live?: LiveStreamOptions;
  /** Limits of GET /api/vaults/:id/history.csv. */
  exports?: CsvExportLimits;
  /** How long GET /api/network keeps its answer, and its wait for each guardian's health. */
  network?: NetworkRouteOptions;
  /** While it returns a reason (a local guardian network starting), `vault.*` calls are refused. */
  gate?: () => string | null;
}

export interface UnitApp {
  app: FastifyInstance;
  store: Store;
  keys: GuardianKeys;
  oracle: Oracle;
  notifier: TelegramNotifier;
  chain: Chain;
  devnet: Devnet | null;
  guardian: Guardian;
  /** Event bus and job leadership shared with the other instances on the database. */
  cluster: Cluster;
  /** GET /api/events and the CSV export: what they hold now. */
  live: LiveStreams;
  exports: CsvExports;
  /** The metrics server's own URL (METRICS_PORT), else null. */
  metricsUrl: string | null;
  /** The start's reindex again, for the vaults it could not rebuild (startup.ts reindexNotRebuilt). */
  reindexNotRebuilt(): Promise<ReindexResult | null>;
  log: Logger;
  /** Stops timers, the server and the database, in that order. */
  close(): Promise<void>;
}

/** The routes that need no more than the store, the chain and the notifier. */
function registerPlainRoutes(
  app: FastifyInstance,
  deps: {
    config: ServerConfig;
    db: Store['db'];
    notifier: TelegramNotifier;
    publicOrigin: () => string;
  },
): void {
  const { config, db, notifier, publicOrigin } = deps;
  registerMissionRoutes(app, db);
  registerLiquidationRoutes(app, db);
  registerClientErrorRoutes(app);
  registerTelegramRoutes(app, db, notifier);
  registerOAuthRoutes(app, db, new AccountLinks(db, config.oauth), publicOrigin);
}

/**
 * The guardian's methods as the socket serves them: `vault.*` refused while `gate` gives a reason
 * (a local guardian network starting), and each answered vault request announced on the bus.
 */
function servedGuardianMethods(
  methods: Record<string, RpcMethod<unknown>>,
  { gate, ...deps }: Parameters<typeof announcingVaultActions>[1] & { gate?: () => string | null },
): Record<string, RpcMethod<unknown>> {
  return announcingVaultActions(whileGuardiansStart(methods, gate), deps);
}

/**
 * The vault jobs one instance runs at a time: the outbox, recovery of co-signed requests, the
 * liquidation sweep, the block watcher and the settlement at the term.
 */
function leadVaultJobs(
  lead: (job: LeaderJob) => void,
  d: Parameters<typeof liquidationSweepJob>[0] & { chain: Chain; devnet: Devnet | null },
  recoveryIntervalMs: number | undefined,
): void {
  const { bus, guardian, oracle, notifier, metrics, chain, log } = d;
  lead(telegramOutboxJob(notifier));
  lead(guardianRecoveryJob({ guardian, log, intervalMs: recoveryIntervalMs }));
  lead(liquidationSweepJob({ bus, guardian, oracle, notifier, metrics, log }));
  lead(blockWatcherJob({ bus, chain, onDevnet: d.devnet !== null, guardian, notifier, log }));
  lead(termSettlementJob({ bus, guardian, quote: () => settlementQuote(oracle), log }));
}

/**
 * A claim a block showed can never be mined is told on Telegram; the notifier starts after the
 * guardian recovered, so a claim settled before then is not told.
 */
function claimNotices(log: Logger) {
  let notifier: TelegramNotifier | null = null;
  return {
    told: (claim: FailedClaim) =>
      void notifier
        ?.claimFailed(claim)
        .catch((err: unknown) => log.error({ err }, 'failed claim not told on Telegram')),
    started: (started: TelegramNotifier) => (notifier = started),
  };
}

/**
 * What the guardian tells of a vault it changed: this instance's cached answers go; a vault a block
 * closed with no request (its owner's exit) is announced to the pages that show it; a claim that
 * can never be mined is told to its claimant.
 */
const vaultHooks = (
  answers: AnswerCache,
  bus: EventBus,
  log: Logger,
  claims: ReturnType<typeof claimNotices>,
) => ({
  claimFailed: claims.told,
  vaultChanged: (vaultId: string) => answers.forgetVault(vaultId),
  vaultClosed: (vaultId: string) =>
    announceVaultChange(bus, { vault_id: vaultId, kind: 'action' }, log),
});

/** GET /api/events' limits as configured (tests may narrow them through BuildAppOptions.live). */
const liveLimits = (config: ServerConfig): LiveStreamOptions => ({
  maxPerAddress: config.liveStreams.perAddress,
  maxStreams: config.liveStreams.max,
});

export async function buildApp(
  config: ServerConfig,
  options: BuildAppOptions = {},
): Promise<UnitApp> {
  const log = options.logger ?? createLogger(config.logLevel);
  const schema = options.databaseSchema ? { schema: options.databaseSchema } : {};
  const store = await openAppStore(config, options.sqliteFile, schema);
  const stops: Array<() => unknown> = [];
  const metrics = createMetrics(config);
  const close = async () => {
    for (const stop of stops.reverse()) await stop();
    await store.close();
  };
  try {
    const cluster = await openCluster({
      db: store.db,
      databaseUrl: config.databaseUrl,
      ...schema,
      log: log.child({ module: 'cluster' }),
      ...(options.jobRetryMs !== undefined ? { retryMs: options.jobRetryMs } : {}),
    });
    // Stopped after the server (pushed first, run last): jobs and locks outlive open requests.
    stops.push(() => cluster.close());
    const { bus, leadership, exclusive } = cluster;
    const lead = (job: LeaderJob) => {
      stops.push(...(job.listen?.() ?? []));
      leadership.add(job);
    };

    const { keys, signer, oracle, devnet, quorum } = await exclusive('startup', () =>
      firstStart(config, { store, exclusive, metrics, log }),
    );
    lead(oracleTickJob({ bus, oracle, log }));
    const unitRuneId = unitRuneIdOf(config, devnet);
    const chain = openChain(config, devnet, unitRuneId);
    if (devnet) lead(devnetMinerJob(devnet));
    // Hot per-vault answers, forgotten on this instance's commits and through the bus; failed claims.
    const [answers, claims] = [new AnswerCache(), claimNotices(log)];
    stops.push(answers.follow(bus));
    const guardian = createGuardian({
      ...vaultHooks(answers, bus, log, claims),
      db: store.db,
      chain,
      oracle,
      signer,
      treasuryKey: keys.treasurySecretKey,
      network: btcNetworkOf(config.network),
      unitRuneId,
      log: log.child({ module: 'guardian' }),
      now: () => Math.floor(Date.now() / 1000),
      instance: cluster.presence,
      vaultTerm: config.vaultTerm,
    });
    // Requests co-signed before a crash are settled before anything new is accepted: this server's
    // previous run's and those of gone instances, never a running one's (cosign/recover.ts).
    await guardian.recover();
    const again = await startupReindex(config, { store, keys, oracle, log, devnet, exclusive });

    const notifier = claims.started(await startNotifier(config, options, { store, log }));
    const jobs = { bus, guardian, oracle, notifier, metrics, chain, devnet, log };
    leadVaultJobs(lead, jobs, options.recoveryIntervalMs);

    const app = createServer(config, log);
    stops.push(() => app.close());
    const publicOrigin = publicOriginResolver(app, config);
    // Several instances share one PostgreSQL: writes and guardian calls are counted there, together
    // (http/shared-rate-limits.ts); SQLite is one instance, which counts in memory.
    const sharedHits =
      store.dialect === 'postgres'
        ? sharedHitCounter(store.db, (error) => log.warn({ err: error }, 'rate-limit sweep failed'))
        : null;
    await app.register(hardening, {
      config,
      metrics,
      sharedHits,
      publicOrigin,
      writesPerMinute: options.writeLimitPerMinute,
      devnetWritesPerMinute: options.devnetWriteLimitPerMinute,
    });
    await app.register(guardianSocket, {
      methods: countRpc(
        metrics,
        servedGuardianMethods(guardian.methods, { db: store.db, bus, log, gate: options.gate }),
      ),
      guardian,
      origins: config.guardianOrigins,
      limits: options.guardianLimits,
      sharedHits,
      log: log.child({ module: 'rpc' }),
    });
    await registerAuthRoutes(app, store.db, () => ({
      origin: publicOrigin(),
      network: config.network,
    }));
    const ledgerAt = registerLedgerRoute(app, { db: store.db, chain });
    registerApiRoutes(app, {
      answers,
      config,
      db: store.db,
      oracle,
      keys,
      notifier,
      unitRuneId: () => unitRuneId,
      vaultGuardPubkey: (row) => guardian.vaultGuardPubkey(row),
      tipHeight: rememberedTipHeight(chain),
      ...(signer.recentExclusions ? { recentExclusions: signer.recentExclusions } : {}),
      network: { validators: appValidators(config.validators, chain, ledgerAt, options.network?.cacheMs), ...options.network }, // prettier-ignore
    });
    // RUNES_API=ord: the web app reads runes here, through the ord adapter (http/indexer-proxy.ts).
    if (!devnet && config.runesApi === 'ord')
      stops.push(registerOrdIndexer(app, chain, btcNetworkOf(config.network), bus));
    registerPlainRoutes(app, { config, db: store.db, notifier, publicOrigin });
    const exports = registerHistoryCsvRoute(
      app,
      store.db,
      config.services.explorerUrl,
      oracle,
      options.exports,
    );
    const live = registerEventRoutes(app, {
      bus,
      initial: () => {
        const latest = oracle.latest();
        return latest ? [priceEvent(latest, oracle.staleCause)] : [];
      },
      options: { ...liveLimits(config), ...options.live },
    });
    const metricsServer = await mountMetrics(app, metrics, config, {
      db: store.db,
      chain,
      oracle,
      live,
      exports,
      treasuryAddress: guardian.treasuryAddress,
      guardians: quorum,
    });
    if (metricsServer) stops.push(metricsServer.close);
    if (devnet) await registerDevnetRoutes(app, devnet, { network: config.network });
    await registerStatic(app, options.webDistDir ?? path.join(REPO_ROOT, 'apps/web/dist'));
    await app.ready();
    await leadership.start();

    const parts = { app, store, keys, oracle, notifier, chain, devnet, guardian, cluster, log };
    const metricsUrl = metricsServer?.url ?? null;
    return { ...parts, live, exports, metricsUrl, reindexNotRebuilt: again, close };
  } catch (err) {
    await close().catch(() => undefined);
    throw err;
  }
}

// Composition root: opens the store, runs every module's migrations, loads keys, starts the oracle,
// the devnet (on NETWORK=devnet), the Telegram worker, and mounts every route on one Fastify app.
// Several instances may share one PostgreSQL: first-start work runs under a cluster-wide lock, the
// singleton jobs run where their leadership lock is held, and events cross instances on the bus.
import path from 'node:path';
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import websocket from '@fastify/websocket';
import { p2tr } from '@scure/btc-signer';
import { hexToBytes } from '@noble/hashes/utils.js';
import type { Logger } from 'pino';
import { publicOriginOf, REPO_ROOT, type ServerConfig } from './config';
import { createLogger, requestLogging } from './logger';
import { openStore, type Store } from './store/open';
import { migrateToLatest } from './store/migrations';
import { loadGuardianKeys, type GuardianKeys } from './store/keys';
import { Oracle } from './oracle/oracle';
import { loadOracleKeys } from './oracle/keys';
import { SimulatedPriceSource } from './oracle/price-source';
import { FeedsPriceSource } from '@unit/guardian-net/price';
import { TelegramNotifier } from './notify/telegram';
import { installErrorHandling } from './http/errors';
import { installSecurity } from './http/security';
import { registerApiRoutes } from './http/api';
import { registerIndexerProxy } from './http/indexer-proxy';
import { registerClientErrorRoutes } from './http/client-errors';
import { rateLimitMigrations, sharedHitCounter } from './http/shared-rate-limits';
import { registerMissionRoutes } from './http/missions';
import { registerLiquidationRoutes } from './http/liquidation';
import { registerAuthRoutes, registerOAuthRoutes } from './http/auth';
import { publicOriginResolver } from './http/public-origin';
import { AccountLinks } from './auth/oauth';
import { accountMigrations } from './auth/migrations';
import { registerTelegramRoutes } from './notify/routes';
import { registerHistoryCsvRoute, type CsvExportLimits, type CsvExports } from './http/history-csv';
import { registerStatic } from './http/static';
import { devnetMigrations } from './devnet/migrations';
import { createDevnet, type Devnet } from './devnet/devnet';
import { registerDevnetRoutes } from './devnet/http';
import { DevnetChain } from './chain/devnet-chain';
import { EsploraChain } from './chain/esplora';
import type { Chain } from './chain/port';
import { createGuardian, guardianMigrations, type Guardian } from './guardian';
import { RpcSocketPolicy, serveJsonRpc, type RpcLimits } from './rpc/json-rpc';
import { TEST_NETWORK, NETWORK } from '@scure/btc-signer';
import { openCluster, type Cluster } from './cluster';
import { announceVaultChange, announcingVaultActions } from './cluster/vault-changes';
import { countRpc, createMetrics, mountMetrics, observeFeeds } from './http/metrics';
import { registerEventRoutes, type LiveStreamOptions, type LiveStreams } from './http/events';
import { reindexIfEmpty, timedFetch as reindexFetch } from './operator/reindex';

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
  log: Logger;
  /** Stops timers, the server and the database, in that order. */
  close(): Promise<void>;
}

const xOnly = (hex: string) => hexToBytes(hex);
/** The largest /api body: every one is a small JSON object. */
const API_BODY_LIMIT = 64 * 1024;
const HEADERS_TIMEOUT_MS = 10_000;
/** However long the tick, a ticker service that takes a minute to answer is not answering. */
const MAX_FEED_TIMEOUT_MS = 60_000;
/** Node's own default: an idle keep-alive connection is closed after 5 s. */
const KEEP_ALIVE_TIMEOUT_MS = 5_000;
/** A vault an instance left mid-request stays busy at most about this long once it is gone. */
const RECOVERY_INTERVAL_MS = 10_000;

export async function buildApp(
  config: ServerConfig,
  options: BuildAppOptions = {},
): Promise<UnitApp> {
  const log = options.logger ?? createLogger(config.logLevel);
  const store = await openStore({
    databaseUrl: config.databaseUrl,
    file: options.sqliteFile ?? path.join(config.dataDir, 'unit.db'),
    ...(options.databaseSchema ? { schema: options.databaseSchema } : {}),
  });
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
      ...(options.databaseSchema ? { schema: options.databaseSchema } : {}),
      log: log.child({ module: 'cluster' }),
      ...(options.jobRetryMs !== undefined ? { retryMs: options.jobRetryMs } : {}),
    });
    // Stopped after the server (pushed first, run last): jobs and locks outlive open requests.
    stops.push(() => cluster.close());
    const { bus, leadership } = cluster;

    // First-start work (migrations, keys, the price back-fill, the devnet's genesis) writes once:
    // instances starting together take turns, and the later ones find it done.
    const { keys, oracle, devnet } = await cluster.exclusive('startup', async () => {
      // Devnet tables are migrated on every network so one migration history fits all.
      await migrateToLatest(store.db, {
        ...devnetMigrations,
        ...guardianMigrations,
        ...accountMigrations,
        ...rateLimitMigrations,
      });
      const keys = await loadGuardianKeys(store.db, config);
      const oracle = new Oracle({
        db: store.db,
        source: observeFeeds(
          metrics,
          config.priceSource === 'feeds'
            ? new FeedsPriceSource({
                feeds: config.priceFeeds,
                maxSpreadBasisPoints: config.priceMaxSpreadBasisPoints,
                // A feed that has not answered by about the next tick is not fresh this round.
                timeoutMs: Math.min(Math.floor(config.priceTickMs * 0.9), MAX_FEED_TIMEOUT_MS),
                log: log.child({ module: 'price-feeds' }),
              })
            : new SimulatedPriceSource(config.priceSeed),
        ),
        keys: await loadOracleKeys(store.db, {
          file: config.oracleKeyFile,
          network: config.network,
        }),
        startPriceCents: config.startPriceCents,
        tickMs: config.priceTickMs,
        log: log.child({ module: 'oracle' }),
      });
      await oracle.load();
      // The devnet's chain lives in the database; every instance reads it there, and its writes
      // (broadcast, faucet, mining) take a cluster-wide lock so two instances never race a spend.
      const devnet =
        config.network === 'devnet'
          ? await createDevnet({
              db: store.db,
              treasuryScript: p2tr(xOnly(keys.treasuryPubkey)).script,
              guardianScript: p2tr(xOnly(keys.guardPubkey)).script,
              blockIntervalMs: config.blockIntervalMs,
              exclusive: (work) => cluster.exclusive('devnet', work),
            })
          : null;
      return { keys, oracle, devnet };
    });

    // Every price point reaches every instance: each keeps its oracle's latest price current.
    const onTick = (point: { priceCents: number; timestamp: number }) =>
      void bus
        .publish({ type: 'price', data: { USD: point.priceCents / 100, time: point.timestamp } })
        .catch((err: unknown) => log.error({ err }, 'price tick not announced'));
    oracle.on('tick', onTick);
    stops.push(() => oracle.off('tick', onTick));
    stops.push(
      bus.subscribe((event) => {
        if (event.type === 'price')
          oracle.observe({
            priceCents: Math.round(event.data.USD * 100),
            timestamp: event.data.time,
          });
      }),
    );
    stops.push(bus.onResync(() => void oracle.refresh().catch(() => undefined)));
    leadership.add({
      name: 'oracle-tick',
      // The previous holder's last ticks may not have reached this instance.
      start: async () => {
        await oracle.refresh();
        oracle.startTicking();
      },
      stop: () => oracle.stop(),
    });

    // The UNIT rune, once: the devnet's own etching, or the configured one (required off the
    // devnet); the guardian builds with it and /api/config serves the same id to the page.
    const unitRuneId = devnet?.unitRuneId ?? config.unitRuneId;
    if (unitRuneId === null) throw new Error('UNIT_RUNE_ID is required off the devnet');

    let chain: Chain;
    if (devnet) {
      const miner = devnet;
      leadership.add({
        name: 'devnet-miner',
        start: () => miner.start(),
        stop: () => miner.stop(),
      });
      chain = new DevnetChain(devnet);
    } else {
      chain = new EsploraChain({
        ...config.services,
        network: config.network,
        runesApi: config.runesApi,
        unitRuneId,
        timeoutMs: config.chainTimeoutMs,
      });
    }

    const guardian = createGuardian({
      db: store.db,
      chain,
      oracle,
      guardianKey: keys.guardianSecretKey,
      treasuryKey: keys.treasurySecretKey,
      network: config.network === 'mainnet' ? NETWORK : TEST_NETWORK,
      unitRuneId,
      log: log.child({ module: 'guardian' }),
      now: () => Math.floor(Date.now() / 1000),
      instance: cluster.presence,
    });
    // A request that was co-signed before a crash is settled before anything new is accepted:
    // this server's previous run's requests, and those of any other instance that is gone, never
    // those of an instance still running (guardian/recover.ts).
    await guardian.recover();
    // A database that is gone loses nothing: on an empty one the vaults come back from the chain's
    // state records before any request is taken (operator/reindex.ts). The devnet's chain is in
    // its database, so there is nothing to read back there.
    // A chain that does not answer does not stop the start: the failure is logged, and the next
    // start on a still empty database (or `npm run reindex`) tries again.
    if (!devnet)
      await cluster.exclusive('startup', () =>
        reindexIfEmpty({
          db: store.db,
          esploraUrl: config.services.esploraUrl,
          fetch: reindexFetch,
          network: config.network === 'mainnet' ? NETWORK : TEST_NETWORK,
          guardPubkey: xOnly(keys.guardPubkey),
          treasuryAddress: p2tr(
            xOnly(keys.treasuryPubkey),
            undefined,
            config.network === 'mainnet' ? NETWORK : TEST_NETWORK,
          ).address!,
          thresholdHash: (th, stamp) => oracle.thresholdHash(th, stamp),
          now: () => Math.floor(Date.now() / 1000),
          log: log.child({ module: 'reindex' }),
        }).catch((err: unknown) => {
          log.error({ err }, 'reindex from the chain failed; run npm run reindex once it answers');
          return null;
        }),
      );
    // Telegram announces band changes after each sweep and history after blocks, in the instance
    // that leads the sweep and the block watcher.
    const notifier = new TelegramNotifier({
      db: store.db,
      network: config.network,
      token: config.telegramBotToken,
      apiRoot: config.telegramApiRoot,
      explorerUrl: config.services.explorerUrl,
      origin: publicOriginOf(config, config.port),
      log: log.child({ module: 'telegram' }),
      polling: options.telegramPolling ?? true,
      ...(options.telegramDrainIntervalMs !== undefined
        ? { drainIntervalMs: options.telegramDrainIntervalMs }
        : {}),
      ...(options.telegramRetryDelayMs !== undefined
        ? { retryDelayMs: options.telegramRetryDelayMs }
        : {}),
    });
    await notifier.init();
    leadership.add({
      name: 'telegram-outbox',
      start: () => notifier.startWorker(),
      stop: () => notifier.stop(),
    });
    // Instances that stop while others run leave requests behind too: the leader settles them.
    let recovering: NodeJS.Timeout | null = null;
    leadership.add({
      name: 'guardian-recovery',
      start: () => {
        let round: Promise<unknown> | null = null;
        recovering = setInterval(() => {
          // Rounds never overlap: a slow chain must not have two rounds settle the same request.
          round ??= guardian
            .recover()
            .catch((err: unknown) => log.error({ err }, 'recovery failed'))
            .finally(() => (round = null));
        }, options.recoveryIntervalMs ?? RECOVERY_INTERVAL_MS);
        recovering.unref();
      },
      stop: () => {
        if (recovering) clearInterval(recovering);
        recovering = null;
      },
    });

    // The liquidation sweep runs on every price point, wherever it was recorded, in the one
    // instance that leads it; on taking the lead it sweeps at once at the latest price.
    let sweeping = false;
    const sweep = (priceCents: number, time: number) =>
      void guardian
        .onPriceTick(priceCents, time)
        .then((liquidated) => {
          metrics?.sweepDone(time);
          for (const vault_id of liquidated)
            announceVaultChange(bus, { vault_id, kind: 'liquidation' }, log);
          return notifier.onPriceTick(priceCents);
        })
        .catch((err: unknown) => log.error({ err }, 'liquidation sweep failed'));
    stops.push(
      bus.subscribe((event) => {
        if (event.type === 'price' && sweeping)
          sweep(Math.round(event.data.USD * 100), event.data.time);
      }),
    );
    leadership.add({
      name: 'liquidation-sweep',
      start: () => {
        sweeping = true;
        metrics?.sweepLeading(true);
        const { priceCents, timestamp } = oracle.price();
        sweep(priceCents, timestamp);
      },
      stop: () => {
        sweeping = false;
        metrics?.sweepLeading(false);
      },
    });

    // Blocks: the devnet instance that mined one announces it; on a public network the block
    // watcher's leader polls the tip. The leader confirms history on each block it hears of.
    const announceBlock = (tip: { height: number }) =>
      void bus
        .publish({ type: 'block', data: { height: tip.height } })
        .catch((err: unknown) => log.error({ err }, 'block not announced'));
    if (devnet) stops.push(chain.onBlock(announceBlock));
    let watching = false;
    let unwatch: (() => void) | null = null;
    const confirm = () =>
      void guardian
        .onBlock()
        .then(() => notifier.scanHistory())
        .catch((err: unknown) => log.error({ err }, 'confirmations failed'));
    stops.push(
      bus.subscribe((event) => {
        if (event.type === 'block' && watching) confirm();
      }),
    );
    leadership.add({
      name: 'block-watcher',
      start: () => {
        watching = true;
        if (!devnet) unwatch = chain.onBlock(announceBlock);
        confirm();
      },
      stop: () => {
        watching = false;
        unwatch?.();
        unwatch = null;
      },
    });

    const { limits } = config;
    const app = Fastify({
      loggerInstance: log as FastifyBaseLogger,
      // Every /api body is a small JSON object; the esplora broadcast raises its own limit.
      bodyLimit: API_BODY_LIMIT,
      // A client must send its whole request in time: a body trickled a byte at a time is cut off
      // (Node answers 408 and closes), as is a connection silent for the idle time.
      requestTimeout: limits.requestTimeoutMs,
      connectionTimeout: limits.idleTimeoutMs,
      keepAliveTimeout: KEEP_ALIVE_TIMEOUT_MS,
      http: {
        headersTimeout: Math.min(HEADERS_TIMEOUT_MS, limits.requestTimeoutMs),
        requestTimeout: limits.requestTimeoutMs,
        // Node looks for requests past their time-outs this often (its default is 30 s).
        connectionsCheckingInterval: 1_000,
      },
      // Long-poll WebSocket clients must not hold a shutdown forever.
      forceCloseConnections: true,
      // Behind a load balancer request.ip is the client's, not the balancer's (TRUST_PROXY).
      ...(config.trustProxy ? { trustProxy: config.trustProxy } : {}),
      ...requestLogging(),
    });
    stops.push(() => app.close());
    installErrorHandling(app);
    const publicOrigin = publicOriginResolver(app, config);
    metrics?.instrument(app);
    // Several instances share one PostgreSQL: writes and guardian calls are counted there, together
    // (http/shared-rate-limits.ts); SQLite is one instance, which counts in memory.
    const sharedHits =
      store.dialect === 'postgres'
        ? sharedHitCounter(store.db, (error) => log.warn({ err: error }, 'rate-limit sweep failed'))
        : null;
    await installSecurity(app, {
      writesPerMinute: options.writeLimitPerMinute ?? limits.writesPerMinute,
      devnetWritesPerMinute: options.devnetWriteLimitPerMinute ?? limits.devnetWritesPerMinute,
      services: config.services,
      listenHost: config.host,
      sharedLimits: sharedHits,
      publicOrigin,
    });
    const guardianSockets = new RpcSocketPolicy(
      { origins: config.guardianOrigins, ...options.guardianLimits },
      sharedHits ? async (key, windowMs) => (await sharedHits.count(key, windowMs)).current : null,
    );
    await app.register(websocket, {
      options: { maxPayload: guardianSockets.limits.maxPayloadBytes },
    });
    await registerAuthRoutes(app, store.db, () => ({
      origin: publicOrigin(),
      network: config.network,
    }));
    registerApiRoutes(app, {
      config,
      db: store.db,
      oracle,
      keys,
      notifier,
      unitRuneId: () => unitRuneId,
    });
    // RUNES_API=ord: the web app reads runes here, through the ord adapter (http/indexer-proxy.ts).
    if (!devnet && config.runesApi === 'ord') {
      const indexer = registerIndexerProxy(
        app,
        chain,
        config.network === 'mainnet' ? NETWORK : TEST_NETWORK,
      );
      stops.push(
        bus.subscribe((event) => {
          if (event.type === 'block') indexer.forget();
        }),
      );
    }
    registerMissionRoutes(app, store.db);
    registerLiquidationRoutes(app, store.db);
    registerClientErrorRoutes(app);
    registerTelegramRoutes(app, store.db, notifier);
    registerOAuthRoutes(app, store.db, new AccountLinks(store.db, config.oauth), publicOrigin);
    const exports = registerHistoryCsvRoute(
      app,
      store.db,
      config.services.explorerUrl,
      oracle,
      options.exports,
    );
    const rpcLog = log.child({ module: 'rpc' });
    const rpcMethods = countRpc(
      metrics,
      announcingVaultActions(guardian.methods, { db: store.db, bus, log }),
    );
    app.get(
      '/guardian',
      {
        websocket: true,
        // Another site's page may not drive the guardian with its visitor's browser.
        preValidation: async (request, reply) => {
          if (!guardianSockets.originAllowed(request.headers.origin, request.headers.host))
            await reply.code(403).send({ error: 'Origin not allowed', code: 'bad_request' });
        },
      },
      (socket, request) =>
        serveJsonRpc(socket, rpcMethods, rpcLog, {
          address: request.ip,
          policy: guardianSockets,
          onClose: (client) =>
            void guardian.disconnect(client).catch((err: unknown) => {
              rpcLog.error({ err }, 'releasing reservations failed');
            }),
        }),
    );
    const live = registerEventRoutes(app, {
      bus,
      initial: () => {
        const latest = oracle.latest();
        return latest
          ? [{ type: 'price', data: { USD: latest.priceCents / 100, time: latest.timestamp } }]
          : [];
      },
      ...(options.live ? { options: options.live } : {}),
    });
    const metricsServer = await mountMetrics(app, metrics, config, {
      db: store.db,
      chain,
      oracle,
      live,
      exports,
      treasuryAddress: guardian.treasuryAddress,
    });
    if (metricsServer) stops.push(metricsServer.close);
    if (devnet) await registerDevnetRoutes(app, devnet, { network: config.network });
    await registerStatic(app, options.webDistDir ?? path.join(REPO_ROOT, 'apps/web/dist'));
    await app.ready();
    await leadership.start();

    const parts = { app, store, keys, oracle, notifier, chain, devnet, guardian, cluster, log };
    return { ...parts, live, exports, metricsUrl: metricsServer?.url ?? null, close };
  } catch (err) {
    await close().catch(() => undefined);
    throw err;
  }
}

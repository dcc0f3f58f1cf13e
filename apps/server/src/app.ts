// Composition root: opens the store, runs every module's migrations, loads keys, starts the oracle,
// the devnet (on NETWORK=devnet), the Telegram worker, and mounts every route on one Fastify app.
import path from 'node:path';
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import websocket from '@fastify/websocket';
import { p2tr } from '@scure/btc-signer';
import { hexToBytes } from '@noble/hashes/utils.js';
import type { Logger } from 'pino';
import { REPO_ROOT, type ServerConfig } from './config';
import { createLogger } from './logger';
import { openStore, type Store } from './store/open';
import { migrateToLatest } from './store/migrations';
import { loadGuardianKeys, type GuardianKeys } from './store/keys';
import { Oracle } from './oracle/oracle';
import { loadOracleKeys } from './oracle/keys';
import { SimulatedPriceSource } from './oracle/price-source';
import { TelegramNotifier } from './notify/telegram';
import { installErrorHandling } from './http/errors';
import { installSecurity } from './http/security';
import { registerApiRoutes } from './http/api';
import { registerMissionRoutes } from './http/missions';
import { registerHistoryCsvRoute } from './http/history-csv';
import { registerStatic } from './http/static';
import { devnetMigrations } from './devnet/migrations';
import { createDevnet, type Devnet } from './devnet/devnet';
import { registerDevnetRoutes } from './devnet/http';
import { DevnetChain } from './chain/devnet-chain';
import { EsploraChain } from './chain/esplora';
import type { Chain } from './chain/port';
import { createGuardian, guardianMigrations, type Guardian } from './guardian';
import { serveJsonRpc } from './rpc/json-rpc';
import { TEST_NETWORK, NETWORK } from '@scure/btc-signer';

export interface BuildAppOptions {
  logger?: Logger;
  /** Where the built web app lives; default apps/web/dist. */
  webDistDir?: string;
  /** SQLite file; default `${dataDir}/unit.db`. */
  sqliteFile?: string;
  /** PostgreSQL schema to use (tests isolate themselves with one). */
  databaseSchema?: string;
  writeLimitPerMinute?: number;
  telegramPolling?: boolean;
  telegramDrainIntervalMs?: number;
  telegramRetryDelayMs?: number;
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
  log: Logger;
  /** Stops timers, the server and the database, in that order. */
  close(): Promise<void>;
}

const xOnly = (hex: string) => hexToBytes(hex);

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
  const close = async () => {
    for (const stop of stops.reverse()) await stop();
    await store.close();
  };
  try {
    // Devnet tables are migrated on every network so one migration history fits all.
    await migrateToLatest(store.db, { ...devnetMigrations, ...guardianMigrations });
    const keys = await loadGuardianKeys(store.db, config);

    const oracle = new Oracle({
      db: store.db,
      source: new SimulatedPriceSource(config.priceSeed),
      keys: await loadOracleKeys(store.db),
      startPriceCents: config.startPriceCents,
      tickMs: config.priceTickMs,
      log: log.child({ module: 'oracle' }),
    });
    await oracle.start();
    stops.push(() => oracle.stop());

    let devnet: Devnet | null = null;
    let chain: Chain;
    if (config.network === 'devnet') {
      devnet = await createDevnet({
        db: store.db,
        treasuryScript: p2tr(xOnly(keys.treasuryPubkey)).script,
        guardianScript: p2tr(xOnly(keys.guardPubkey)).script,
        blockIntervalMs: config.blockIntervalMs,
      });
      devnet.start();
      const running = devnet;
      stops.push(() => running.stop());
      chain = new DevnetChain(devnet);
    } else {
      chain = new EsploraChain({ ...config.services, network: config.network });
    }

    const guardian = createGuardian({
      db: store.db,
      chain,
      oracle,
      guardianKey: keys.guardianSecretKey,
      treasuryKey: keys.treasurySecretKey,
      network: config.network === 'mainnet' ? NETWORK : TEST_NETWORK,
      unitRuneId: devnet?.unitRuneId ?? config.unitRuneId,
      log: log.child({ module: 'guardian' }),
      now: () => Math.floor(Date.now() / 1000),
    });
    // A request that was co-signed before a crash is settled before anything new is accepted.
    await guardian.recover();
    const onTick = (point: { priceCents: number; timestamp: number }) =>
      void guardian.onPriceTick(point.priceCents, point.timestamp).catch((err: unknown) => {
        log.error({ err }, 'liquidation sweep failed');
      });
    oracle.on('tick', onTick);
    stops.push(() => oracle.off('tick', onTick));
    stops.push(
      chain.onBlock(
        () =>
          void guardian
            .onBlock()
            .catch((err: unknown) => log.error({ err }, 'confirmations failed')),
      ),
    );

    const notifier = new TelegramNotifier({
      db: store.db,
      network: config.network,
      token: config.telegramBotToken,
      apiRoot: config.telegramApiRoot,
      explorerUrl: config.services.explorerUrl,
      log: log.child({ module: 'telegram' }),
      polling: options.telegramPolling ?? true,
      ...(options.telegramDrainIntervalMs !== undefined
        ? { drainIntervalMs: options.telegramDrainIntervalMs }
        : {}),
      ...(options.telegramRetryDelayMs !== undefined
        ? { retryDelayMs: options.telegramRetryDelayMs }
        : {}),
    });
    await notifier.start();
    stops.push(() => notifier.stop());

    const app = Fastify({
      loggerInstance: log as FastifyBaseLogger,
      bodyLimit: 1_048_576,
      // Long-poll WebSocket clients must not hold a shutdown forever.
      forceCloseConnections: true,
    });
    stops.push(() => app.close());
    installErrorHandling(app);
    await installSecurity(app, {
      ...(options.writeLimitPerMinute !== undefined
        ? { writeLimitPerMinute: options.writeLimitPerMinute }
        : {}),
    });
    await app.register(websocket);
    const runeId = devnet?.unitRuneId ?? '';
    registerApiRoutes(app, {
      config,
      db: store.db,
      oracle,
      keys,
      notifier,
      unitRuneId: () => runeId,
    });
    registerMissionRoutes(app, store.db);
    registerHistoryCsvRoute(app, store.db, config.services.explorerUrl, oracle);
    const rpcLog = log.child({ module: 'rpc' });
    app.get('/guardian', { websocket: true }, (socket) =>
      serveJsonRpc(socket, guardian.methods, rpcLog),
    );
    if (devnet) await registerDevnetRoutes(app, devnet, { network: config.network });
    await registerStatic(app, options.webDistDir ?? path.join(REPO_ROOT, 'apps/web/dist'));
    await app.ready();

    return { app, store, keys, oracle, notifier, chain, devnet, guardian, log, close };
  } catch (err) {
    await close().catch(() => undefined);
    throw err;
  }
}

// What the composition root (app.ts) does once at start, before any request: the first-start work
// under the cluster-wide lock (migrations, keys, the oracle and its price back-fill, the devnet's
// genesis), the chain the guardian reads, and the reindex of an empty database from the chain.
import path from 'node:path';
import { p2tr, NETWORK, TEST_NETWORK } from '@scure/btc-signer';
import { hexToBytes } from '@noble/hashes/utils.js';
import type { Logger } from 'pino';
import { publicOriginOf, type ServerConfig } from './config';
import { TelegramNotifier } from './notify/telegram';
import { openStore, type Store } from './store/open';
import { ensurePrivateDir } from './store/secret-files';
import { migrateToLatest } from './store/migrations';
import { loadGuardianKeys, type GuardianKeys } from './store/keys';
import { guardianSignerOf, servedKeys } from './network-client/signer-of';
import type { GuardianSigner } from './cosign/signer';
import { treasuryOutputOf } from './cosign/treasury-output';
import { Oracle } from './oracle/oracle';
import { loadOracleKeys } from './oracle/keys';
import { priceQuorumFeedOf, type PriceQuorumFeed } from './oracle/quorum';
import { devnetMarketOf } from './devnet/market';
import { networkOraclesOf } from './oracle/network-oracles';
import { SimulatedPriceSource } from './oracle/price-source';
import { FeedsPriceSource } from '@unit/guardian-net/price';
import { rateLimitMigrations } from './http/shared-rate-limits';
import { accountMigrations } from './auth/migrations';
import { devnetMigrations } from './devnet/migrations';
import { createDevnet, type Devnet } from './devnet/devnet';
import { DevnetChain } from './devnet/devnet-chain';
import { EsploraChain } from './chain/esplora';
import type { Chain } from './chain/port';
import { guardianMigrations } from './cosign';
import type { Exclusive } from './cluster';
import { observeFeeds, type createMetrics } from './http/metrics';
import {
  reindexFromChain,
  reindexIfEmpty,
  timedFetch as reindexFetch,
  type ReindexDeps,
  type ReindexResult,
} from './operator/reindex';
import { networkLeavesOf, networkTreasuryAddresses, ownLeaves } from './operator/vault-leaves';

/** However long the tick, a ticker service that takes a minute to answer is not answering. */
const MAX_FEED_TIMEOUT_MS = 60_000;

const xOnly = (hex: string) => hexToBytes(hex);

/** The signer's network parameters for the configured network. */
export const btcNetworkOf = (network: ServerConfig['network']) =>
  network === 'mainnet' ? NETWORK : TEST_NETWORK;

export interface StartDeps {
  store: Store;
  exclusive: Exclusive;
  metrics: ReturnType<typeof createMetrics>;
  log: Logger;
}

/**
 * The server's database, in a data directory only its owner can reach (0700, tightened when it
 * exists: its database, keys and backups are there; store/secret-files.ts).
 */
export function openAppStore(
  config: ServerConfig,
  sqliteFile: string | undefined,
  schema: { schema?: string },
): Promise<Store> {
  ensurePrivateDir(config.dataDir);
  return openStore({
    databaseUrl: config.databaseUrl,
    file: sqliteFile ?? path.join(config.dataDir, 'unit.db'),
    ...schema,
  });
}

/**
 * First-start work writes once: instances starting together take turns (the caller runs this under
 * the cluster's 'startup' lock), and the later ones find it done.
 */
export async function firstStart(
  config: ServerConfig,
  { store, exclusive, metrics, log }: StartDeps,
): Promise<{
  keys: GuardianKeys;
  signer: GuardianSigner;
  oracle: Oracle;
  devnet: Devnet | null;
  quorum: PriceQuorumFeed | null;
}> {
  // Devnet tables are migrated on every network so one migration history fits all.
  await migrateToLatest(store.db, {
    ...devnetMigrations,
    ...guardianMigrations,
    ...accountMigrations,
    ...rateLimitMigrations,
  });
  const ownKeys = await loadGuardianKeys(store.db, config);
  // Who co-signs: this server's key, or the guardian network it coordinates (GUARDIAN_NETWORK);
  // every vault leaf commits to the signer's key, so that is the guard_pubkey served.
  const signer = await guardianSignerOf(config, ownKeys, store.db);
  const keys = servedKeys(ownKeys, signer);
  const quorum = priceQuorumFeedOf(config, log.child({ module: 'price-quorum' }));
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
    keys: await loadOracleKeys(store.db, { file: config.oracleKeyFile, network: config.network }),
    startPriceCents: config.startPriceCents,
    tickMs: config.priceTickMs,
    log: log.child({ module: 'oracle' }),
    quorum,
    // Network mode on the devnet: the market its guardians read (the app's series is their quorum).
    market: devnetMarketOf(config, store.db),
    // With the network the guardians are the oracles of the liquidation leaves (network-oracles.ts).
    ...(signer.kind === 'network' ? { network: networkOraclesOf(config, store.db) } : {}),
  });
  await oracle.load();
  // The devnet's chain lives in the database; every instance reads it there, and its writes
  // (broadcast, faucet, mining) take a cluster-wide lock so two instances never race a spend.
  const devnet =
    config.network === 'devnet'
      ? await createDevnet({
          db: store.db,
          // The devnet etches UNIT to the treasury at first start: the group's with the network.
          treasuryScript: treasuryOutputOf(keys, btcNetworkOf(config.network)).script,
          guardianScript: p2tr(xOnly(ownKeys.guardPubkey)).script,
          blockIntervalMs: config.blockIntervalMs,
          faucetKeyFile: path.join(config.dataDir, 'devnet-faucet.key'),
          exclusive: (work) => exclusive('devnet', work),
        })
      : null;
  return { keys, signer, oracle, devnet, quorum };
}

/**
 * The UNIT rune, once: the devnet's own etching, or the configured one (required off the devnet);
 * the guardian builds with it and /api/config serves the same id to the page.
 */
export function unitRuneIdOf(config: ServerConfig, devnet: Devnet | null): string {
  const unitRuneId = devnet?.unitRuneId ?? config.unitRuneId;
  if (unitRuneId === null) throw new Error('UNIT_RUNE_ID is required off the devnet');
  return unitRuneId;
}

/** The devnet's own chain, or the configured esplora (and ord) services. */
export function openChain(config: ServerConfig, devnet: Devnet | null, unitRuneId: string): Chain {
  if (devnet) return new DevnetChain(devnet);
  return new EsploraChain({
    ...config.services,
    network: config.network,
    runesApi: config.runesApi,
    unitRuneId,
    timeoutMs: config.chainTimeoutMs,
  });
}

/**
 * A database that is gone loses nothing: on an empty one the vaults come back from the chain's
 * state records before any request is taken (operator/reindex.ts). (The devnet's chain is in its
 * database, so there is nothing to read back there.) A chain that does not answer does not stop
 * the start: the failure is logged, and the next start on a still empty database (or
 * `npm run reindex`) tries again. `run` is reindexIfEmpty; reindexNotRebuilt's is reindexFromChain.
 */
export function reindexWhenEmpty(
  config: ServerConfig,
  deps: { store: Store; keys: GuardianKeys; oracle: Oracle; log: Logger },
  run: (deps: ReindexDeps) => Promise<ReindexResult | null> = reindexIfEmpty,
): Promise<ReindexResult | null> {
  const { store, keys, oracle, log } = deps;
  const network = btcNetworkOf(config.network);
  return run({
    db: store.db,
    esploraUrl: config.services.esploraUrl,
    fetch: reindexFetch,
    treasuryAddresses:
      config.guardianNetwork.mode === 'off'
        ? [treasuryOutputOf(keys, network).address]
        : networkTreasuryAddresses(config, network),
    leaves:
      config.guardianNetwork.mode === 'off'
        ? ownLeaves({
            guardPubkey: xOnly(keys.guardPubkey),
            thresholdHash: (th, stamp) => oracle.thresholdHash(th, stamp),
            network,
          })
        : networkLeavesOf(config, store.db, network),
    now: () => Math.floor(Date.now() / 1000),
    log: log.child({ module: 'reindex' }),
  }).catch((err: unknown) => {
    log.error({ err }, 'reindex from the chain failed; run npm run reindex once it answers');
    return null;
  });
}

/**
 * GUARDIAN_NETWORK=local: the start's reindex (reindexWhenEmpty, in buildApp) runs before main.ts
 * starts the embedded guardians, so no network vault's leaves can be proven then and each is "not
 * rebuilt". Once t guardians are ready main.ts calls this: when the first reindex left vaults not
 * rebuilt, the reindex again (`again`: reindexFromChain, which skips the vaults already restored),
 * under the cluster's `exclusive('startup')` as the first. Null when there is nothing to redo (the
 * database was not empty, or every vault was rebuilt). A vault whose key the chain does not show
 * yet (keyUnknown) waits for its next spend either way: the guardians do not change that.
 */
export async function reindexNotRebuilt(
  first: ReindexResult | null,
  deps: { exclusive: Exclusive; again: () => Promise<ReindexResult | null> },
): Promise<ReindexResult | null> {
  if (!first || first.leavesUnknown.length === 0) return null;
  return deps.exclusive('startup', deps.again);
}

/**
 * The start's reindex (off the devnet, on an empty database), under the cluster's
 * `exclusive('startup')`; returns what main.ts runs once the embedded guardians are ready.
 */
export async function startupReindex(
  config: ServerConfig,
  deps: {
    store: Store;
    keys: GuardianKeys;
    oracle: Oracle;
    log: Logger;
    devnet: Devnet | null;
    exclusive: Exclusive;
  },
): Promise<() => Promise<ReindexResult | null>> {
  const { exclusive } = deps;
  const first = deps.devnet
    ? null
    : await exclusive('startup', () => reindexWhenEmpty(config, deps));
  return () =>
    reindexNotRebuilt(first, {
      exclusive,
      again: () => reindexWhenEmpty(config, deps, reindexFromChain),
    });
}

/**
 * Telegram announces band changes after each sweep and history after blocks, in the instance that
 * leads the sweep and the block watcher (jobs/); its bot answers commands where it is polled.
 */
export async function startNotifier(
  config: ServerConfig,
  options: {
    telegramPolling?: boolean;
    telegramDrainIntervalMs?: number;
    telegramRetryDelayMs?: number;
  },
  { store, log }: { store: Store; log: Logger },
): Promise<TelegramNotifier> {
  const notifier = new TelegramNotifier({
    db: store.db,
    network: config.network,
    token: config.telegramBotToken,
    apiRoot: config.telegramApiRoot,
    timeoutMs: config.telegramTimeoutMs,
    explorerUrl: config.services.explorerUrl,
    origin: publicOriginOf(config, config.port),
    log: log.child({ module: 'telegram' }),
    polling: options.telegramPolling ?? true,
    vaultTerm: config.vaultTerm,
    ...(options.telegramDrainIntervalMs !== undefined
      ? { drainIntervalMs: options.telegramDrainIntervalMs }
      : {}),
    ...(options.telegramRetryDelayMs !== undefined
      ? { retryDelayMs: options.telegramRetryDelayMs }
      : {}),
  });
  await notifier.init();
  return notifier;
}

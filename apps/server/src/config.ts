// Server configuration from the environment (ARCHITECTURE.md, Configuration). On the devnet every
// variable is optional: with none set, `npm start` serves it on http://127.0.0.1:8080. Off the devnet
// nothing that names the network is guessed: the chain services, the UNIT rune id and the keys must
// be given, and every problem is listed at once before anything starts.
// The schema with its defaults is config-schema.ts, the problems report config-problems.ts; this
// file derives ServerConfig from them.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { defaultTermConfig, type Network, type TermConfig } from '@unit/protocol';
import type { PriceFeed } from '@unit/guardian-net/price';
import { blankToUndefined, envSchema } from './config-schema';
import { networkIdentityProblems, priceSettings } from './config-problems';

export { DEFAULT_DOCS_URL, DEFAULT_PRICE_MAX_SPREAD_BASIS_POINTS } from './config-schema';
export { oracleKeyFileProblems, parseOracleKeyFile } from './config-problems';

/** The repository root: DATA_DIR defaults to ./data beside it, whatever the working directory. */
export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

export interface ServiceUrls {
  esploraUrl: string;
  mempoolUrl: string;
  ordinalsUrl: string;
  runesUrl: string;
  explorerUrl: string;
}

export interface ProductLinks {
  docs: string;
  twitter: string | null;
  discord: string | null;
  telegram: string | null;
}

export interface ServerConfig {
  port: number;
  host: string;
  network: Network;
  /** postgres://… selects PostgreSQL; unset means SQLite at `${dataDir}/unit.db`. */
  databaseUrl: string | null;
  dataDir: string;
  /** simulated only on the devnet; feeds read PRICE_FEEDS every tick. */
  priceSource: 'simulated' | 'feeds';
  priceFeeds: PriceFeed[];
  /** Largest spread of fresh feed answers, in basis points of their median, before it is stale. */
  priceMaxSpreadBasisPoints: number;
  services: ServiceUrls;
  /** Longest wait for one answer of a chain service (esplora, mempool, ordinals, runes). */
  chainTimeoutMs: number;
  telegramBotToken: string | null;
  telegramApiRoot: string | null;
  /** Longest wait for one Telegram Bot API answer (the long poll's own wait comes on top). */
  telegramTimeoutMs: number;
  /** The header's Docs link and the social links; a social link unset is not shown. */
  links: ProductLinks;
  /** OAuth2 apps for account links; null: that link is not configured here. */
  oauth: { discord: OAuthApp | null; twitter: OAuthApp | null };
  /** 32-byte hex secret key; generated and stored at first devnet start when unset. */
  guardianKey: string | null;
  /**
   * The origin people open the app at (PUBLIC_ORIGIN): sign-in challenges name it and OAuth
   * redirects return to it, whatever Host a request carries. Null on a devnet without one: the
   * listening address then (publicOriginOf).
   */
  publicOrigin: string | null;
  /**
   * The oracle's key file (ORACLE_KEY_FILE): its signing key and the seed of its threshold
   * secrets. Required off the devnet; on the devnet `${dataDir}/oracle.key`, made at first start.
   */
  oracleKeyFile: string;
  /** Open validators whose ledger digest GET /api/network compares with the app's (UNIT_VALIDATORS). */
  validators: string[];
  /** Page origins besides the app's own that may open /guardian (GUARDIAN_ORIGINS). */
  guardianOrigins: string[];
  /**
   * Who co-signs vault spends: `off` is one key in this server (GUARDIAN_KEY); `local`
   * runs n guardian processes on this machine, t of which must approve; `external` coordinates a
   * network whose published set and this server's coordinator identity are in `dir`.
   */
  guardianNetwork: GuardianNetworkConfig;
  /** The UNIT rune's id (`block:tx`), required off the devnet; null on the devnet, which etches its own. */
  unitRuneId: string | null;
  /** How runes and ordinals are read off the devnet: this product's routes, or ord's JSON API. */
  runesApi: 'unit' | 'ord';
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  blockIntervalMs: number;
  /** Devnet starting price, USD cents. */
  startPriceCents: number;
  priceTickMs: number;
  /** Seed of the simulated random walk, so a devnet is reproducible. */
  priceSeed: number;
  /** Seconds a vault transaction waits unconfirmed before the app suggests speeding it up. */
  speedUpAfterSeconds: number;
  /** The term new vault outputs commit to (layout 2): VAULT_TERM_BLOCKS, VAULT_TERM_GRACE_BLOCKS. */
  vaultTerm: TermConfig;
  limits: EdgeLimits;
  /**
   * Addresses or CIDR ranges of the load balancers whose X-Forwarded-For is believed (Fastify's
   * trustProxy list, e.g. `10.0.0.0/8,loopback`); null uses the socket's address. Per-address
   * limits (writes, live streams) need the client's own address, not the balancer's.
   */
  trustProxy: string | null;
  /** GET /api/events: open streams allowed per client address, and in all on this instance. */
  liveStreams: { perAddress: number; max: number };
  /** Prometheus metrics (http/metrics.ts): off unless a token or a port of their own is set. */
  metrics: { token: string | null; port: number | null };
}

export interface GuardianNetworkConfig {
  mode: 'local' | 'external' | 'off';
  /** GUARDIAN_DIR, default `${dataDir}/guardians`. */
  dir: string;
  /** GUARDIAN_N and GUARDIAN_T: a local network's size and threshold (t <= n). */
  n: number;
  t: number;
  /** GUARDIAN_BASE_PORT: guardian i listens on base + i - 1; 0 picks free ports at creation. */
  basePort: number;
  /**
   * GUARDIAN_MAX_FEE_RATE: each local guardian's --max-fee-rate (sat/vB), the most a treasury split
   * or move may pay; absent, the guardians' default (500).
   */
  maxFeeRate?: number;
  /** GUARDIAN_ONE_ROUND: sign over preprocessed commitments in one round trip (absent: on). */
  oneRound?: boolean;
}

/** Limits at the HTTP edge; they hold for every client address, loopback included. */
export interface EdgeLimits {
  /** POST routes under /api (and the esplora broadcast), per client address per minute. */
  writesPerMinute: number;
  /** The devnet faucet, mine and price controls, per client address per minute. */
  devnetWritesPerMinute: number;
  /** Longest a client may take to send a whole request, headers and body. */
  requestTimeoutMs: number;
  /** A connection silent this long is closed (an upgraded WebSocket is not an HTTP connection). */
  idleTimeoutMs: number;
}

export interface OAuthApp {
  clientId: string;
  clientSecret: string | null;
  /** The provider's base URL (tests point it at a local fake). */
  apiRoot: string | null;
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n  ${problems.join('\n  ')}`);
    this.name = 'ConfigError';
  }
}

/** The devnet serves its chain services itself, so its URLs are relative to this origin. */
const devnetServices: ServiceUrls = {
  esploraUrl: '/esplora',
  mempoolUrl: '/mempool',
  ordinalsUrl: '/ordinals',
  runesUrl: '/runes',
  explorerUrl: '/explorer',
};

/** Parses the environment; throws ConfigError listing every bad value at once. */
export function loadConfig(
  env: NodeJS.ProcessEnv = process.env,
  /** The operator's `etch` runs before any UNIT rune exists; everything else needs one. */
  { runeIdRequired = true }: { runeIdRequired?: boolean } = {},
): ServerConfig {
  const parsed = envSchema.safeParse(env);
  const problems = parsed.success ? [] : parsed.error.issues.map((issue) => issue.message);
  const price = priceSettings(env);
  problems.push(...price.problems);
  if (parsed.success && parsed.data.NETWORK !== 'devnet' && !parsed.data.PUBLIC_ORIGIN)
    problems.push(
      'PUBLIC_ORIGIN is required off the devnet: the origin people open the app at, e.g. https://app.example (sign-in messages name it)',
    );
  // Even when other values are bad, a valid NETWORK says which identity must be complete.
  const chosen = envSchema.shape.NETWORK.safeParse(env.NETWORK);
  const dataDirText = blankToUndefined(env.DATA_DIR);
  const dataDir = path.resolve(REPO_ROOT, typeof dataDirText === 'string' ? dataDirText : 'data');
  problems.push(
    ...networkIdentityProblems(env, chosen.success ? chosen.data : null, dataDir).filter(
      (problem) => runeIdRequired || !problem.startsWith('UNIT_RUNE_ID is required'),
    ),
  );
  if (!parsed.success || problems.length > 0) throw new ConfigError(problems);
  const e = parsed.data;
  const network = e.NETWORK;
  const onDevnet = network === 'devnet';
  return {
    port: e.PORT,
    host: e.HOST,
    network,
    databaseUrl: e.DATABASE_URL ?? null,
    dataDir,
    priceSource: price.source,
    priceFeeds: price.feeds,
    priceMaxSpreadBasisPoints: e.PRICE_MAX_SPREAD,
    // Off the devnet networkIdentityProblems has made sure every one is set.
    services: {
      esploraUrl: e.ESPLORA_URL ?? devnetServices.esploraUrl,
      mempoolUrl: e.MEMPOOL_URL ?? devnetServices.mempoolUrl,
      ordinalsUrl: e.ORDINALS_URL ?? devnetServices.ordinalsUrl,
      runesUrl: e.RUNES_URL ?? devnetServices.runesUrl,
      explorerUrl: e.EXPLORER_URL ?? devnetServices.explorerUrl,
    },
    chainTimeoutMs: e.CHAIN_TIMEOUT,
    telegramBotToken: e.TELEGRAM_BOT_TOKEN ?? null,
    telegramApiRoot: e.TELEGRAM_API_ROOT ?? null,
    telegramTimeoutMs: e.TELEGRAM_TIMEOUT,
    links: {
      docs: e.DOCS_URL,
      twitter: e.TWITTER_URL,
      discord: e.DISCORD_URL,
      telegram: e.TELEGRAM_URL,
    },
    oauth: {
      discord: e.DISCORD_CLIENT_ID
        ? {
            clientId: e.DISCORD_CLIENT_ID,
            clientSecret: e.DISCORD_CLIENT_SECRET ?? null,
            apiRoot: e.DISCORD_API_ROOT ?? null,
          }
        : null,
      twitter: e.TWITTER_CLIENT_ID
        ? {
            clientId: e.TWITTER_CLIENT_ID,
            clientSecret: e.TWITTER_CLIENT_SECRET ?? null,
            apiRoot: e.TWITTER_API_ROOT ?? null,
          }
        : null,
    },
    guardianKey: e.GUARDIAN_KEY?.toLowerCase() ?? null,
    publicOrigin: e.PUBLIC_ORIGIN ?? null,
    oracleKeyFile: path.resolve(e.ORACLE_KEY_FILE ?? path.join(dataDir, 'oracle.key')),
    guardianOrigins: e.GUARDIAN_ORIGINS ?? [],
    validators: e.UNIT_VALIDATORS ?? [],
    guardianNetwork: {
      // main.ts makes `local` the devnet's default for `npm start`; a library caller (a test) signs alone.
      mode: e.GUARDIAN_NETWORK ?? 'off',
      dir: path.resolve(e.GUARDIAN_DIR ?? path.join(dataDir, 'guardians')),
      n: e.GUARDIAN_N,
      t: e.GUARDIAN_T,
      basePort: e.GUARDIAN_BASE_PORT,
      ...(e.GUARDIAN_MAX_FEE_RATE !== undefined ? { maxFeeRate: e.GUARDIAN_MAX_FEE_RATE } : {}),
      oneRound: e.GUARDIAN_ONE_ROUND === 'on',
    },
    unitRuneId: onDevnet ? null : (e.UNIT_RUNE_ID ?? null),
    runesApi: e.RUNES_API,
    logLevel: e.LOG_LEVEL,
    blockIntervalMs: e.BLOCK_INTERVAL,
    startPriceCents: e.START_PRICE * 100,
    priceTickMs: e.PRICE_TICK,
    priceSeed: e.PRICE_SEED,
    limits: {
      writesPerMinute: e.WRITES_PER_MINUTE,
      devnetWritesPerMinute: e.DEVNET_WRITES_PER_MINUTE,
      requestTimeoutMs: e.REQUEST_TIMEOUT,
      idleTimeoutMs: e.IDLE_TIMEOUT,
    },
    trustProxy: e.TRUST_PROXY ?? null,
    liveStreams: { perAddress: e.LIVE_STREAMS_PER_ADDRESS, max: e.LIVE_STREAMS_MAX },
    speedUpAfterSeconds: e.SPEED_UP_AFTER,
    vaultTerm: {
      termBlocks: e.VAULT_TERM_BLOCKS ?? defaultTermConfig(network).termBlocks,
      graceBlocks: e.VAULT_TERM_GRACE_BLOCKS ?? defaultTermConfig(network).graceBlocks,
    },
    metrics: { token: e.METRICS_TOKEN ?? null, port: e.METRICS_PORT ?? null },
  };
}

/**
 * The origin sign-in messages and OAuth redirects name: PUBLIC_ORIGIN, or on a devnet without it
 * the address the server listens on (`port`: the bound one, which differs from PORT=0).
 */
export function publicOriginOf(config: ServerConfig, port: number): string {
  if (config.publicOrigin) return config.publicOrigin;
  const anyAddress = config.host === '0.0.0.0' || config.host === '::' || config.host === '';
  const host = anyAddress ? '127.0.0.1' : config.host;
  return `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
}

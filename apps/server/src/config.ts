// Server configuration from the environment (ARCHITECTURE.md, Configuration). Every variable is
// optional: with none set, `npm start` serves the devnet on http://127.0.0.1:8080.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as z from 'zod';
import { SPEED_UP_AFTER_SECONDS, type Network } from '@unit/protocol';
import { parsePriceFeeds, type PriceFeed } from './oracle/feeds';

/** The repository root: DATA_DIR defaults to ./data beside it, whatever the working directory. */
export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

export interface ServiceUrls {
  esploraUrl: string;
  mempoolUrl: string;
  ordinalsUrl: string;
  runesUrl: string;
  explorerUrl: string;
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
  telegramBotToken: string | null;
  telegramApiRoot: string | null;
  /** OAuth2 apps for account links (issue 14); null: that link is not configured here. */
  oauth: { discord: OAuthApp | null; twitter: OAuthApp | null };
  /** 32-byte hex secret key; generated and stored at first devnet start when unset. */
  guardianKey: string | null;
  /** Page origins besides the app's own that may open /guardian (GUARDIAN_ORIGINS). */
  guardianOrigins: string[];
  /** The UNIT rune's id (`block:tx`) on a real network; the devnet etches its own. */
  unitRuneId: string;
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  blockIntervalMs: number;
  /** Devnet starting price, USD cents. */
  startPriceCents: number;
  priceTickMs: number;
  /** Seed of the simulated random walk, so a devnet is reproducible. */
  priceSeed: number;
  /** Seconds a vault transaction waits unconfirmed before the app suggests speeding it up. */
  speedUpAfterSeconds: number;
  limits: EdgeLimits;
  /**
   * Addresses or CIDR ranges of the load balancers whose X-Forwarded-For is believed (Fastify's
   * trustProxy list, e.g. `10.0.0.0/8,loopback`); null uses the socket's address. Per-address
   * limits (writes, live streams) need the client's own address, not the balancer's.
   */
  trustProxy: string | null;
  /** Prometheus metrics (http/metrics.ts): off unless a token or a port of their own is set. */
  metrics: { token: string | null; port: number | null };
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

const blankToUndefined = (value: unknown) =>
  typeof value === 'string' && value.trim() === '' ? undefined : value;

/** `http(s)://host[:port]` and nothing more: what a browser sends as Origin. */
const isWebOrigin = (text: string) => {
  try {
    const parsed = new URL(text);
    return /^https?:$/.test(parsed.protocol) && parsed.origin === text;
  } catch {
    return false;
  }
};

const url = (name: string) =>
  z.preprocess(
    blankToUndefined,
    z
      .url({ error: `${name} must be an absolute http(s) URL, e.g. https://mempool.space` })
      .optional(),
  );

const intInRange = (name: string, min: number, max: number) =>
  z.preprocess(
    blankToUndefined,
    z.coerce
      .number({ error: `${name} must be a whole number` })
      .int({ error: `${name} must be a whole number` })
      .min(min, { error: `${name} must be at least ${min}` })
      .max(max, { error: `${name} must be at most ${max}` })
      .optional(),
  );

const envSchema = z.object({
  PORT: intInRange('PORT', 0, 65_535),
  HOST: z.preprocess(blankToUndefined, z.string().optional()),
  NETWORK: z.preprocess(
    blankToUndefined,
    z
      .enum(['devnet', 'signet', 'mutinynet', 'mainnet'], {
        error: 'NETWORK must be one of devnet, signet, mutinynet, mainnet',
      })
      .optional(),
  ),
  DATABASE_URL: z.preprocess(
    blankToUndefined,
    z
      .string()
      .regex(/^postgres(ql)?:\/\//, {
        error: 'DATABASE_URL must be a postgres:// URL (leave it unset for SQLite)',
      })
      .optional(),
  ),
  DATA_DIR: z.preprocess(blankToUndefined, z.string().optional()),
  PRICE_SOURCE: z.preprocess(
    blankToUndefined,
    z.enum(['simulated', 'feeds'], { error: 'PRICE_SOURCE must be simulated or feeds' }).optional(),
  ),
  PRICE_FEEDS: z.preprocess(blankToUndefined, z.string().optional()),
  // Percent with up to two decimals; sources within 1% of each other are always fine.
  PRICE_MAX_SPREAD: z.preprocess(
    blankToUndefined,
    z
      .string()
      .regex(/^\d{1,2}(\.\d{1,2})?$/, {
        error: 'PRICE_MAX_SPREAD must be a percentage from 1 to 50, e.g. 3 or 2.5',
      })
      .transform((text) => Math.round(Number(text) * 100))
      .refine((bp) => bp >= 100 && bp <= 5_000, {
        error: 'PRICE_MAX_SPREAD must be a percentage from 1 to 50, e.g. 3 or 2.5',
      })
      .optional(),
  ),
  ESPLORA_URL: url('ESPLORA_URL'),
  MEMPOOL_URL: url('MEMPOOL_URL'),
  ORDINALS_URL: url('ORDINALS_URL'),
  RUNES_URL: url('RUNES_URL'),
  EXPLORER_URL: url('EXPLORER_URL'),
  TELEGRAM_BOT_TOKEN: z.preprocess(
    blankToUndefined,
    z
      .string()
      .regex(/^\d+:[\w-]+$/, { error: 'TELEGRAM_BOT_TOKEN must look like 123456:ABC-def' })
      .optional(),
  ),
  TELEGRAM_API_ROOT: url('TELEGRAM_API_ROOT'),
  DISCORD_CLIENT_ID: z.preprocess(blankToUndefined, z.string().max(200).optional()),
  DISCORD_CLIENT_SECRET: z.preprocess(blankToUndefined, z.string().max(200).optional()),
  DISCORD_API_ROOT: url('DISCORD_API_ROOT'),
  TWITTER_CLIENT_ID: z.preprocess(blankToUndefined, z.string().max(200).optional()),
  TWITTER_CLIENT_SECRET: z.preprocess(blankToUndefined, z.string().max(200).optional()),
  TWITTER_API_ROOT: url('TWITTER_API_ROOT'),
  UNIT_RUNE_ID: z.preprocess(
    blankToUndefined,
    z
      .string()
      .regex(/^\d+:\d+$/, { error: 'UNIT_RUNE_ID must look like 840000:3 (block:tx)' })
      .optional(),
  ),
  GUARDIAN_KEY: z.preprocess(
    blankToUndefined,
    z
      .string()
      .regex(/^[0-9a-fA-F]{64}$/, { error: 'GUARDIAN_KEY must be 64 hex characters (32 bytes)' })
      .optional(),
  ),
  GUARDIAN_ORIGINS: z.preprocess(
    blankToUndefined,
    z
      .string()
      .transform((list) => list.split(',').map((origin) => origin.trim().replace(/\/$/, '')))
      .refine((origins) => origins.every(isWebOrigin), {
        error: 'GUARDIAN_ORIGINS must be comma-separated origins, e.g. https://app.example',
      })
      .optional(),
  ),
  LOG_LEVEL: z.preprocess(
    blankToUndefined,
    z
      .enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], {
        error: 'LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent',
      })
      .optional(),
  ),
  // 0 mines only on demand (tests, the browser journeys); otherwise a block every N ms.
  BLOCK_INTERVAL: intInRange('BLOCK_INTERVAL (milliseconds)', 0, 86_400_000),
  START_PRICE: intInRange('START_PRICE (whole USD)', 1, 100_000_000),
  PRICE_TICK: intInRange('PRICE_TICK (milliseconds)', 100, 86_400_000),
  PRICE_SEED: intInRange('PRICE_SEED', 0, 2 ** 31 - 1),
  WRITES_PER_MINUTE: intInRange('WRITES_PER_MINUTE', 1, 1_000_000),
  DEVNET_WRITES_PER_MINUTE: intInRange('DEVNET_WRITES_PER_MINUTE', 1, 1_000_000),
  REQUEST_TIMEOUT: intInRange('REQUEST_TIMEOUT (milliseconds)', 1_000, 3_600_000),
  IDLE_TIMEOUT: intInRange('IDLE_TIMEOUT (milliseconds)', 1_000, 3_600_000),
  TRUST_PROXY: z.preprocess(
    blankToUndefined,
    z
      .string()
      .max(1_000)
      .regex(/^[0-9A-Za-z.:/]+(\s*,\s*[0-9A-Za-z.:/]+)*$/, {
        error: 'TRUST_PROXY must list proxy addresses or CIDR ranges, e.g. 10.0.0.0/8,loopback',
      })
      .optional(),
  ),
  SPEED_UP_AFTER: intInRange('SPEED_UP_AFTER (seconds)', 0, 86_400),
  METRICS_TOKEN: z.preprocess(
    blankToUndefined,
    z
      .string()
      .regex(/^[\x21-\x7e]{16,200}$/, {
        error: 'METRICS_TOKEN must be 16 to 200 printable characters without spaces',
      })
      .optional(),
  ),
  METRICS_PORT: intInRange('METRICS_PORT', 0, 65_535),
});

/** The devnet serves its chain services itself, so its URLs are relative to this origin. */
const devnetServices: ServiceUrls = {
  esploraUrl: '/esplora',
  mempoolUrl: '/mempool',
  ordinalsUrl: '/ordinals',
  runesUrl: '/runes',
  explorerUrl: '/explorer',
};

const publicServices: Record<Exclude<Network, 'devnet'>, ServiceUrls> = {
  signet: {
    esploraUrl: 'https://mempool.space/signet/api',
    mempoolUrl: 'https://mempool.space',
    ordinalsUrl: 'https://signet.ordinals.com',
    runesUrl: 'https://signet.ordinals.com',
    explorerUrl: 'https://mempool.space/signet',
  },
  mutinynet: {
    esploraUrl: 'https://mutinynet.com/api',
    mempoolUrl: 'https://mutinynet.com',
    ordinalsUrl: 'https://mutinynet.com',
    runesUrl: 'https://mutinynet.com',
    explorerUrl: 'https://mutinynet.com',
  },
  mainnet: {
    esploraUrl: 'https://mempool.space/api',
    mempoolUrl: 'https://mempool.space',
    ordinalsUrl: 'https://ordinals.com',
    runesUrl: 'https://ordinals.com',
    explorerUrl: 'https://mempool.space',
  },
};

/** Parses the environment; throws ConfigError listing every bad value at once. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): ServerConfig {
  const parsed = envSchema.safeParse(env);
  const problems = parsed.success ? [] : parsed.error.issues.map((issue) => issue.message);
  const price = priceSettings(env);
  problems.push(...price.problems);
  if (!parsed.success || problems.length > 0) throw new ConfigError(problems);
  const e = parsed.data;
  const network = e.NETWORK ?? 'devnet';
  const defaults = network === 'devnet' ? devnetServices : publicServices[network];
  const dataDir = path.resolve(REPO_ROOT, e.DATA_DIR ?? 'data');
  return {
    port: e.PORT ?? 8080,
    host: e.HOST ?? '127.0.0.1',
    network,
    databaseUrl: e.DATABASE_URL ?? null,
    dataDir,
    priceSource: price.source,
    priceFeeds: price.feeds,
    priceMaxSpreadBasisPoints: e.PRICE_MAX_SPREAD ?? DEFAULT_PRICE_MAX_SPREAD_BASIS_POINTS,
    services: {
      esploraUrl: e.ESPLORA_URL ?? defaults.esploraUrl,
      mempoolUrl: e.MEMPOOL_URL ?? defaults.mempoolUrl,
      ordinalsUrl: e.ORDINALS_URL ?? defaults.ordinalsUrl,
      runesUrl: e.RUNES_URL ?? e.ORDINALS_URL ?? defaults.runesUrl,
      explorerUrl: e.EXPLORER_URL ?? defaults.explorerUrl,
    },
    telegramBotToken: e.TELEGRAM_BOT_TOKEN ?? null,
    telegramApiRoot: e.TELEGRAM_API_ROOT ?? null,
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
    guardianOrigins: e.GUARDIAN_ORIGINS ?? [],
    unitRuneId: e.UNIT_RUNE_ID ?? '1:1',
    logLevel: e.LOG_LEVEL ?? 'info',
    blockIntervalMs: e.BLOCK_INTERVAL ?? 10_000,
    startPriceCents: (e.START_PRICE ?? 95_000) * 100,
    priceTickMs: e.PRICE_TICK ?? 30_000,
    priceSeed: e.PRICE_SEED ?? 21,
    limits: {
      writesPerMinute: e.WRITES_PER_MINUTE ?? 30,
      devnetWritesPerMinute: e.DEVNET_WRITES_PER_MINUTE ?? 100,
      requestTimeoutMs: e.REQUEST_TIMEOUT ?? 30_000,
      idleTimeoutMs: e.IDLE_TIMEOUT ?? 60_000,
    },
    trustProxy: e.TRUST_PROXY ?? null,
    speedUpAfterSeconds: e.SPEED_UP_AFTER ?? SPEED_UP_AFTER_SECONDS,
    metrics: { token: e.METRICS_TOKEN ?? null, port: e.METRICS_PORT ?? null },
  };
}

/** Feed answers more than 3% apart make the price stale unless PRICE_MAX_SPREAD says otherwise. */
export const DEFAULT_PRICE_MAX_SPREAD_BASIS_POINTS = 300;

/**
 * PRICE_SOURCE and PRICE_FEEDS together. A random walk is fine for a local devnet but a guardian on
 * a real network would co-sign against it, so simulated is refused there; feeds are the default
 * off the devnet and need at least two feeds, since one source alone is never a fresh price.
 */
function priceSettings(env: NodeJS.ProcessEnv): {
  source: 'simulated' | 'feeds';
  feeds: PriceFeed[];
  problems: string[];
} {
  const network = envSchema.shape.NETWORK.safeParse(env.NETWORK);
  const chosen = envSchema.shape.PRICE_SOURCE.safeParse(env.PRICE_SOURCE);
  const onDevnet = !network.success || (network.data ?? 'devnet') === 'devnet';
  const source = (chosen.success ? chosen.data : undefined) ?? (onDevnet ? 'simulated' : 'feeds');
  const problems: string[] = [];
  if (source === 'simulated' && !onDevnet)
    problems.push(
      `PRICE_SOURCE=simulated is only for the devnet; on ${String(network.data)} set PRICE_SOURCE=feeds and PRICE_FEEDS`,
    );
  const text = blankToUndefined(env.PRICE_FEEDS);
  const { feeds, problems: feedProblems } = parsePriceFeeds(typeof text === 'string' ? text : '');
  problems.push(...feedProblems);
  if (source === 'feeds' && feedProblems.length === 0 && feeds.length < 2)
    problems.push(
      'PRICE_FEEDS must list at least two feeds as kind@baseUrl, comma-separated, when PRICE_SOURCE is feeds (the default off the devnet)',
    );
  return { source, feeds, problems };
}

// Server configuration from the environment (ARCHITECTURE.md, Configuration). On the devnet every
// variable is optional: with none set, `npm start` serves it on http://127.0.0.1:8080. Off the devnet
// nothing that names the network is guessed: the chain services, the UNIT rune id and the keys must
// be given, and every problem is listed at once before anything starts.
import fs from 'node:fs';
import path from 'node:path';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { hexToBytes } from '@noble/hashes/utils.js';
import { fileURLToPath } from 'node:url';
import * as z from 'zod';
import {
  PRICE_MAX_SPREAD_BASIS_POINTS,
  SPEED_UP_AFTER_SECONDS,
  type Network,
} from '@unit/protocol';
import { DEFAULT_CHAIN_TIMEOUT_MS } from './chain/esplora';
import { parsePriceFeeds, type PriceFeed } from '@unit/guardian-net/price';

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

/** The product's own docs, built into the app (apps/web/scripts/docs-pages.ts). */
export const DEFAULT_DOCS_URL = '/docs/index.html';

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
  /** The header's Docs link and the social links (issue 22); a social link unset is not shown. */
  links: ProductLinks;
  /** OAuth2 apps for account links (issue 14); null: that link is not configured here. */
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
  /** Page origins besides the app's own that may open /guardian (GUARDIAN_ORIGINS). */
  guardianOrigins: string[];
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

/** A link the page shows: http(s), or a path on this origin. Never javascript: or the like. */
const pageLink = (name: string) =>
  z.preprocess(
    blankToUndefined,
    z
      .string()
      .max(500)
      .regex(/^(https?:\/\/[^\s"'<>]+|\/[^\s"'<>]*)$/i, {
        error: `${name} must be an http(s) URL or a path starting with /, e.g. https://x.com/unit`,
      })
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
  RUNES_API: z.preprocess(
    blankToUndefined,
    z.enum(['unit', 'ord'], { error: 'RUNES_API must be unit or ord' }).optional(),
  ),
  EXPLORER_URL: url('EXPLORER_URL'),
  CHAIN_TIMEOUT: intInRange('CHAIN_TIMEOUT (milliseconds)', 100, 120_000),
  TELEGRAM_BOT_TOKEN: z.preprocess(
    blankToUndefined,
    z
      .string()
      .regex(/^\d+:[\w-]+$/, { error: 'TELEGRAM_BOT_TOKEN must look like 123456:ABC-def' })
      .optional(),
  ),
  TELEGRAM_API_ROOT: url('TELEGRAM_API_ROOT'),
  DOCS_URL: pageLink('DOCS_URL'),
  TWITTER_URL: pageLink('TWITTER_URL'),
  DISCORD_URL: pageLink('DISCORD_URL'),
  TELEGRAM_URL: pageLink('TELEGRAM_URL'),
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
  ORACLE_KEY_FILE: z.preprocess(blankToUndefined, z.string().max(4_096).optional()),
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
  PUBLIC_ORIGIN: z.preprocess(
    blankToUndefined,
    z
      .string()
      .transform((origin) => origin.trim().replace(/\/$/, ''))
      .refine(isWebOrigin, {
        error: 'PUBLIC_ORIGIN must be an origin, scheme and host only, e.g. https://app.example',
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
  if (
    parsed.success &&
    (parsed.data.NETWORK ?? 'devnet') !== 'devnet' &&
    !parsed.data.PUBLIC_ORIGIN
  )
    problems.push(
      'PUBLIC_ORIGIN is required off the devnet: the origin people open the app at, e.g. https://app.example (sign-in messages name it)',
    );
  // Even when other values are bad, a valid NETWORK says which identity must be complete.
  const chosen = envSchema.shape.NETWORK.safeParse(env.NETWORK);
  const dataDirText = blankToUndefined(env.DATA_DIR);
  const dataDir = path.resolve(REPO_ROOT, typeof dataDirText === 'string' ? dataDirText : 'data');
  problems.push(
    ...networkIdentityProblems(
      env,
      chosen.success ? (chosen.data ?? 'devnet') : null,
      dataDir,
    ).filter((problem) => runeIdRequired || !problem.startsWith('UNIT_RUNE_ID is required')),
  );
  if (!parsed.success || problems.length > 0) throw new ConfigError(problems);
  const e = parsed.data;
  const network = e.NETWORK ?? 'devnet';
  const onDevnet = network === 'devnet';
  return {
    port: e.PORT ?? 8080,
    host: e.HOST ?? '127.0.0.1',
    network,
    databaseUrl: e.DATABASE_URL ?? null,
    dataDir,
    priceSource: price.source,
    priceFeeds: price.feeds,
    priceMaxSpreadBasisPoints: e.PRICE_MAX_SPREAD ?? DEFAULT_PRICE_MAX_SPREAD_BASIS_POINTS,
    // Off the devnet networkIdentityProblems has made sure every one is set.
    services: {
      esploraUrl: e.ESPLORA_URL ?? devnetServices.esploraUrl,
      mempoolUrl: e.MEMPOOL_URL ?? devnetServices.mempoolUrl,
      ordinalsUrl: e.ORDINALS_URL ?? devnetServices.ordinalsUrl,
      runesUrl: e.RUNES_URL ?? devnetServices.runesUrl,
      explorerUrl: e.EXPLORER_URL ?? devnetServices.explorerUrl,
    },
    chainTimeoutMs: e.CHAIN_TIMEOUT ?? DEFAULT_CHAIN_TIMEOUT_MS,
    telegramBotToken: e.TELEGRAM_BOT_TOKEN ?? null,
    telegramApiRoot: e.TELEGRAM_API_ROOT ?? null,
    links: {
      docs: e.DOCS_URL ?? DEFAULT_DOCS_URL,
      // SPEC §2 shows the three; until an operator names its own accounts they open this product's
      // docs, never another protocol's (issue 22).
      twitter: e.TWITTER_URL ?? DEFAULT_DOCS_URL,
      discord: e.DISCORD_URL ?? DEFAULT_DOCS_URL,
      telegram: e.TELEGRAM_URL ?? DEFAULT_DOCS_URL,
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
    unitRuneId: onDevnet ? null : (e.UNIT_RUNE_ID ?? null),
    runesApi: e.RUNES_API ?? 'unit',
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

/** Feed answers more than 3% apart make the price stale unless PRICE_MAX_SPREAD says otherwise. */
export const DEFAULT_PRICE_MAX_SPREAD_BASIS_POINTS = PRICE_MAX_SPREAD_BASIS_POINTS;

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

/** What a real network needs named, since no default can know it: one message per thing missing. */
const REQUIRED_OFF_DEVNET: ReadonlyArray<[string, string]> = [
  ['ESPLORA_URL', 'the esplora API, e.g. https://mempool.space/signet/api'],
  ['MEMPOOL_URL', 'the mempool.space-compatible fee service, e.g. https://mempool.space'],
  ['ORDINALS_URL', "the ordinals service that lists an address's plain outputs"],
  ['RUNES_URL', "the runes service that lists an address's UNIT outputs"],
  ['EXPLORER_URL', 'the block explorer links point at, e.g. https://mempool.space/signet'],
  ['UNIT_RUNE_ID', 'the UNIT rune (block:tx); `npm run operator -- etch` makes one'],
  ['GUARDIAN_KEY', "the guardian's 32-byte hex secret key (the treasury key derives from it)"],
  ['ORACLE_KEY_FILE', "the oracle's key file; `npm run operator -- oracle-key <file>` makes one"],
];

/**
 * The network's identity: on the devnet the server makes it (and UNIT_RUNE_ID would contradict the
 * devnet's own etching); anywhere else every part must be set. Keys are checked here too, so a bad
 * key is one more line in the list rather than a stack trace after "starting".
 */
function networkIdentityProblems(
  env: NodeJS.ProcessEnv,
  network: Network | null,
  dataDir: string,
): string[] {
  if (network === null) return [];
  const problems: string[] = [];
  const given = (name: string) => typeof blankToUndefined(env[name]) === 'string';
  if (network === 'devnet') {
    if (given('UNIT_RUNE_ID'))
      problems.push('UNIT_RUNE_ID is for real networks; the devnet etches its own UNIT');
  } else {
    for (const [name, what] of REQUIRED_OFF_DEVNET)
      if (!given(name)) problems.push(`${name} is required on ${network}: ${what}`);
  }
  const guardianKey = blankToUndefined(env.GUARDIAN_KEY);
  if (
    typeof guardianKey === 'string' &&
    /^[0-9a-fA-F]{64}$/.test(guardianKey) &&
    !secp256k1.utils.isValidSecretKey(hexToBytes(guardianKey))
  )
    problems.push('GUARDIAN_KEY is not a valid secp256k1 secret key');
  const keyFile = blankToUndefined(env.ORACLE_KEY_FILE);
  const file = path.resolve(
    typeof keyFile === 'string' ? keyFile : path.join(dataDir, 'oracle.key'),
  );
  // On the devnet a missing file is made at first start; a file that is there is checked anywhere.
  if (typeof keyFile === 'string' || fs.existsSync(file))
    problems.push(...oracleKeyFileProblems(file));
  return problems;
}

/** Problems with an oracle key file as it is on disk (oracle/key-file.ts reads it). */
export function oracleKeyFileProblems(file: string): string[] {
  let stat: fs.Stats;
  try {
    stat = fs.statSync(file);
  } catch {
    return [`ORACLE_KEY_FILE ${file} cannot be read`];
  }
  if (!stat.isFile()) return [`ORACLE_KEY_FILE ${file} is not a file`];
  if (process.platform !== 'win32' && (stat.mode & 0o077) !== 0)
    return [
      `ORACLE_KEY_FILE ${file} can be read by others (mode ${(stat.mode & 0o777).toString(8)}); chmod 600 it`,
    ];
  const problem = parseOracleKeyFile(safeRead(file)).problem;
  return problem ? [`ORACLE_KEY_FILE ${file} ${problem}`] : [];
}

function safeRead(file: string): string {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}

/**
 * The oracle key file: JSON with the Schnorr signing key and the secret every threshold secret
 * derives from (per vault: its threshold price and stamp), each 32 bytes of hex.
 */
export function parseOracleKeyFile(
  text: string,
): { key: string; secret: string; problem: null } | { problem: string } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return { problem: 'is not JSON {"oracle_key": hex, "oracle_secret": hex}' };
  }
  const fields = z
    .object({
      oracle_key: z.string().regex(/^[0-9a-fA-F]{64}$/),
      oracle_secret: z.string().regex(/^[0-9a-fA-F]{64}$/),
    })
    .safeParse(parsed);
  if (!fields.success)
    return { problem: 'must hold "oracle_key" and "oracle_secret", 64 hex characters each' };
  const key = fields.data.oracle_key.toLowerCase();
  if (!secp256k1.utils.isValidSecretKey(hexToBytes(key)))
    return { problem: 'has an oracle_key that is not a valid secp256k1 secret key' };
  return { key, secret: fields.data.oracle_secret.toLowerCase(), problem: null };
}

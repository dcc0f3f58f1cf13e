// Server configuration from the environment (ARCHITECTURE.md, Configuration). Every variable is
// optional: with none set, `npm start` serves the devnet on http://127.0.0.1:8080.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as z from 'zod';
import { SPEED_UP_AFTER_SECONDS, type Network } from '@unit/protocol';

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
  priceSource: 'simulated';
  services: ServiceUrls;
  telegramBotToken: string | null;
  telegramApiRoot: string | null;
  /** 32-byte hex secret key; generated and stored at first devnet start when unset. */
  guardianKey: string | null;
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
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n  ${problems.join('\n  ')}`);
    this.name = 'ConfigError';
  }
}

const blankToUndefined = (value: unknown) =>
  typeof value === 'string' && value.trim() === '' ? undefined : value;

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
    z.enum(['simulated'], { error: 'PRICE_SOURCE must be simulated' }).optional(),
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
  SPEED_UP_AFTER: intInRange('SPEED_UP_AFTER (seconds)', 0, 86_400),
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
  if (!parsed.success) {
    throw new ConfigError(parsed.error.issues.map((issue) => issue.message));
  }
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
    priceSource: e.PRICE_SOURCE ?? 'simulated',
    services: {
      esploraUrl: e.ESPLORA_URL ?? defaults.esploraUrl,
      mempoolUrl: e.MEMPOOL_URL ?? defaults.mempoolUrl,
      ordinalsUrl: e.ORDINALS_URL ?? defaults.ordinalsUrl,
      runesUrl: e.RUNES_URL ?? e.ORDINALS_URL ?? defaults.runesUrl,
      explorerUrl: e.EXPLORER_URL ?? defaults.explorerUrl,
    },
    telegramBotToken: e.TELEGRAM_BOT_TOKEN ?? null,
    telegramApiRoot: e.TELEGRAM_API_ROOT ?? null,
    guardianKey: e.GUARDIAN_KEY?.toLowerCase() ?? null,
    unitRuneId: e.UNIT_RUNE_ID ?? '1:1',
    logLevel: e.LOG_LEVEL ?? 'info',
    blockIntervalMs: e.BLOCK_INTERVAL ?? 10_000,
    startPriceCents: (e.START_PRICE ?? 95_000) * 100,
    priceTickMs: e.PRICE_TICK ?? 30_000,
    priceSeed: e.PRICE_SEED ?? 21,
    speedUpAfterSeconds: e.SPEED_UP_AFTER ?? SPEED_UP_AFTER_SECONDS,
  };
}

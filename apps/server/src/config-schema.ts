// The environment the server reads, as one zod schema: each variable's shape, its problem message,
// and its default when unset or blank (config.ts derives ServerConfig from the parsed values).
// A new variable is one line here plus its field in config.ts's ServerConfig and loadConfig.
import * as z from 'zod';
import { PRICE_MAX_SPREAD_BASIS_POINTS, SPEED_UP_AFTER_SECONDS } from '@unit/protocol';

/** How long one call to a chain service may take before it counts as unanswered. */
export const DEFAULT_CHAIN_TIMEOUT_MS = 10_000;

/** The longest wait for one Bot API answer unless TELEGRAM_TIMEOUT says otherwise. */
export const DEFAULT_TELEGRAM_TIMEOUT_MS = 10_000;

/** The product's own docs, built into the app (apps/web/scripts/docs-pages.ts). */
export const DEFAULT_DOCS_URL = '/docs/index.html';

/** Feed answers more than 3% apart make the price stale unless PRICE_MAX_SPREAD says otherwise. */
export const DEFAULT_PRICE_MAX_SPREAD_BASIS_POINTS = PRICE_MAX_SPREAD_BASIS_POINTS;

export const blankToUndefined = (value: unknown) =>
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

/** An absolute http(s) URL, path allowed (a validator behind a proxy's prefix). */
const isHttpUrl = (text: string) => {
  try {
    return /^https?:$/.test(new URL(text).protocol);
  } catch {
    return false;
  }
};

export const url = (name: string) =>
  z.preprocess(
    blankToUndefined,
    z
      .url({ error: `${name} must be an absolute http(s) URL, e.g. https://mempool.space` })
      .optional(),
  );

/** A link the page shows: http(s), or a path on this origin. Never javascript: or the like. */
const pageLink = (name: string, fallback: string) =>
  z.preprocess(
    blankToUndefined,
    z
      .string()
      .max(500)
      .regex(/^(https?:\/\/[^\s"'<>]+|\/[^\s"'<>]*)$/i, {
        error: `${name} must be an http(s) URL or a path starting with /, e.g. https://x.com/unit`,
      })
      .default(fallback),
  );

const wholeNumber = (name: string, min: number, max: number) =>
  z.coerce
    .number({ error: `${name} must be a whole number` })
    .int({ error: `${name} must be a whole number` })
    .min(min, { error: `${name} must be at least ${min}` })
    .max(max, { error: `${name} must be at most ${max}` });

/** A whole number from min to max; unset or blank is `fallback`. */
const intInRange = (name: string, min: number, max: number, fallback: number) =>
  z.preprocess(blankToUndefined, wholeNumber(name, min, max).default(fallback));

/** A whole number from min to max, or unset (undefined). */
const optionalInt = (name: string, min: number, max: number) =>
  z.preprocess(blankToUndefined, wholeNumber(name, min, max).optional());

export const envSchema = z.object({
  PORT: intInRange('PORT', 0, 65_535, 8080),
  HOST: z.preprocess(blankToUndefined, z.string().default('127.0.0.1')),
  NETWORK: z.preprocess(
    blankToUndefined,
    z
      .enum(['devnet', 'signet', 'mutinynet', 'mainnet'], {
        error: 'NETWORK must be one of devnet, signet, mutinynet, mainnet',
      })
      .default('devnet'),
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
      .default(DEFAULT_PRICE_MAX_SPREAD_BASIS_POINTS),
  ),
  ESPLORA_URL: url('ESPLORA_URL'),
  MEMPOOL_URL: url('MEMPOOL_URL'),
  ORDINALS_URL: url('ORDINALS_URL'),
  RUNES_URL: url('RUNES_URL'),
  RUNES_API: z.preprocess(
    blankToUndefined,
    z.enum(['unit', 'ord'], { error: 'RUNES_API must be unit or ord' }).default('unit'),
  ),
  EXPLORER_URL: url('EXPLORER_URL'),
  CHAIN_TIMEOUT: intInRange('CHAIN_TIMEOUT (milliseconds)', 100, 120_000, DEFAULT_CHAIN_TIMEOUT_MS),
  TELEGRAM_BOT_TOKEN: z.preprocess(
    blankToUndefined,
    z
      .string()
      .regex(/^\d+:[\w-]+$/, { error: 'TELEGRAM_BOT_TOKEN must look like 123456:ABC-def' })
      .optional(),
  ),
  TELEGRAM_API_ROOT: url('TELEGRAM_API_ROOT'),
  TELEGRAM_TIMEOUT: intInRange(
    'TELEGRAM_TIMEOUT (milliseconds)',
    100,
    120_000,
    DEFAULT_TELEGRAM_TIMEOUT_MS,
  ),
  DOCS_URL: pageLink('DOCS_URL', DEFAULT_DOCS_URL),
  // SPEC §2 shows the three; until an operator names its own accounts they open this product's
  // docs, never another protocol's.
  TWITTER_URL: pageLink('TWITTER_URL', DEFAULT_DOCS_URL),
  DISCORD_URL: pageLink('DISCORD_URL', DEFAULT_DOCS_URL),
  TELEGRAM_URL: pageLink('TELEGRAM_URL', DEFAULT_DOCS_URL),
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
  // The guardian network: `local` starts t-of-n guardian processes on this machine
  // (GUARDIAN_DIR holds their set and files), `external` coordinates a network running elsewhere
  // (GUARDIAN_DIR holds the published set and this server's coordinator identity), `off` signs
  // alone with GUARDIAN_KEY. Unset: `local` when `npm start` runs a devnet (main.ts), else `off`.
  GUARDIAN_NETWORK: z.preprocess(
    blankToUndefined,
    z
      .enum(['local', 'external', 'off'], {
        error: 'GUARDIAN_NETWORK must be local, external or off',
      })
      .optional(),
  ),
  GUARDIAN_DIR: z.preprocess(blankToUndefined, z.string().max(4_096).optional()),
  GUARDIAN_N: intInRange('GUARDIAN_N', 1, 15, 3),
  GUARDIAN_T: intInRange('GUARDIAN_T', 1, 15, 2),
  // The first guardian's port in a local network; 0 picks free ports when the network is created.
  GUARDIAN_BASE_PORT: intInRange('GUARDIAN_BASE_PORT', 0, 65_000, 0),
  // The most a local guardian lets an operator's treasury split or move pay, in sat/vB (each
  // guardian's --max-fee-rate); unset keeps the guardians' own default, 500.
  GUARDIAN_MAX_FEE_RATE: optionalInt('GUARDIAN_MAX_FEE_RATE (sat/vB)', 1, 100_000),
  // `on` (the default): the coordinator keeps each guardian's preprocessed commitments and a
  // request is signed in one round trip; `off`: two round trips (approvals, then shares).
  GUARDIAN_ONE_ROUND: z.preprocess(
    blankToUndefined,
    z.enum(['on', 'off'], { error: 'GUARDIAN_ONE_ROUND must be on or off' }).default('on'),
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
  // Open validators (`npm run validator -- --serve`) whose ledger digest /network compares with the
  // app's: comma-separated http(s) URLs, at most 16.
  UNIT_VALIDATORS: z.preprocess(
    blankToUndefined,
    z
      .string()
      .transform((list) => list.split(',').map((url) => url.trim().replace(/\/+$/, '')))
      .refine((urls) => urls.length <= 16 && urls.every(isHttpUrl), {
        error:
          'UNIT_VALIDATORS must be at most 16 comma-separated http(s) URLs of validators started with --serve, e.g. http://127.0.0.1:8090',
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
      .default('info'),
  ),
  // 0 mines only on demand (tests, the browser journeys); otherwise a block every N ms.
  BLOCK_INTERVAL: intInRange('BLOCK_INTERVAL (milliseconds)', 0, 86_400_000, 10_000),
  START_PRICE: intInRange('START_PRICE (whole USD)', 1, 100_000_000, 95_000),
  PRICE_TICK: intInRange('PRICE_TICK (milliseconds)', 100, 86_400_000, 30_000),
  PRICE_SEED: intInRange('PRICE_SEED', 0, 2 ** 31 - 1, 21),
  WRITES_PER_MINUTE: intInRange('WRITES_PER_MINUTE', 1, 1_000_000, 30),
  DEVNET_WRITES_PER_MINUTE: intInRange('DEVNET_WRITES_PER_MINUTE', 1, 1_000_000, 100),
  REQUEST_TIMEOUT: intInRange('REQUEST_TIMEOUT (milliseconds)', 1_000, 3_600_000, 30_000),
  IDLE_TIMEOUT: intInRange('IDLE_TIMEOUT (milliseconds)', 1_000, 3_600_000, 60_000),
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
  // GET /api/events (http/events.ts): streams per client address, and in all on this instance.
  LIVE_STREAMS_PER_ADDRESS: intInRange('LIVE_STREAMS_PER_ADDRESS', 1, 1_000, 8),
  LIVE_STREAMS_MAX: intInRange('LIVE_STREAMS_MAX', 1, 100_000, 10_000),
  SPEED_UP_AFTER: intInRange('SPEED_UP_AFTER (seconds)', 0, 86_400, SPEED_UP_AFTER_SECONDS),
  // The term of a new vault output (vault-term.ts); unset: the network's (devnet 40 + 20 blocks).
  VAULT_TERM_BLOCKS: optionalInt('VAULT_TERM_BLOCKS', 1, 525_600),
  VAULT_TERM_GRACE_BLOCKS: optionalInt('VAULT_TERM_GRACE_BLOCKS', 1, 525_600),
  METRICS_TOKEN: z.preprocess(
    blankToUndefined,
    z
      .string()
      .regex(/^[\x21-\x7e]{16,200}$/, {
        error: 'METRICS_TOKEN must be 16 to 200 printable characters without spaces',
      })
      .optional(),
  ),
  METRICS_PORT: optionalInt('METRICS_PORT', 0, 65_535),
});

export type Env = z.infer<typeof envSchema>;

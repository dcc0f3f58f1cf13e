// The all-problems-at-once report: what the schema alone cannot say (the price source against the
// network, what a real network must name, the keys and the oracle key file), each problem one line,
// so an operator sees every one before anything starts.
import fs from 'node:fs';
import path from 'node:path';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { hexToBytes } from '@noble/hashes/utils.js';
import * as z from 'zod';
import type { Network } from '@unit/protocol';
import { parsePriceFeeds, type PriceFeed } from '@unit/guardian-net/price';
import { blankToUndefined, envSchema } from './config-schema';

/**
 * PRICE_SOURCE and PRICE_FEEDS together. A random walk is fine for a local devnet but a guardian on
 * a real network would co-sign against it, so simulated is refused there; feeds are the default
 * off the devnet and need at least two feeds, since one source alone is never a fresh price.
 */
export function priceSettings(env: NodeJS.ProcessEnv): {
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
  // With a guardian network run elsewhere, the app's price is its guardians' quorum and each
  // guardian reads the feeds its own operator gave it: PRICE_SOURCE and PRICE_FEEDS would do nothing.
  if (blankToUndefined(env.GUARDIAN_NETWORK) === 'external') {
    for (const name of ['PRICE_SOURCE', 'PRICE_FEEDS'] as const)
      if (typeof blankToUndefined(env[name]) === 'string')
        problems.push(
          `${name} is not read with GUARDIAN_NETWORK=external: the app's price is its guardians' quorum, and each guardian reads its own feeds (guardian start --feeds); remove ${name}`,
        );
    return { source, feeds: [], problems };
  }
  const { feeds, problems: feedProblems } = parsePriceFeeds(typeof text === 'string' ? text : '');
  problems.push(...feedProblems);
  // A setting that does nothing is refused, not silently ignored.
  if (source === 'simulated' && onDevnet && typeof text === 'string')
    problems.push(
      'PRICE_FEEDS is read only when PRICE_SOURCE is feeds, and PRICE_SOURCE is simulated (the devnet default), so these feeds would never be asked: set PRICE_SOURCE=feeds to read them (with the local guardian network, its guardians read them), or remove PRICE_FEEDS',
    );
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
export function networkIdentityProblems(
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
    // `local` guardians read their chain, price and facts from this app: a devnet's network only.
    if (blankToUndefined(env.GUARDIAN_NETWORK) === 'local')
      problems.push(
        `GUARDIAN_NETWORK=local is for the devnet only (its guardians read their chain, price and facts from this app); on ${network} run each guardian with its own pinned facts (docs/guardian-network.md, "A guardian's flags") and set GUARDIAN_NETWORK=external`,
      );
  }
  const n = envSchema.shape.GUARDIAN_N.safeParse(env.GUARDIAN_N);
  const t = envSchema.shape.GUARDIAN_T.safeParse(env.GUARDIAN_T);
  if (n.success && t.success && t.data > n.data)
    problems.push(`GUARDIAN_T (${t.data}) must be at most GUARDIAN_N (${n.data})`);
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

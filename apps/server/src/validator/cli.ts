// `npm run validator -- --chain <esplora URL> ...`: an open validator (docs/protocol.md, "The open
// validator"). It follows the chain from block 0 with no database and no key, rebuilds every vault
// from the state records and the transactions alone, and prints block by block the ledger digest
// and any rule a record broke. See `usage` below and the README ("Run a validator").
import { parseArgs } from 'node:util';
import { pathToFileURL } from 'node:url';
import { hex } from '@scure/base';
import { Address, NETWORK, OutScript, TEST_NETWORK } from '@scure/btc-signer';
import { readFileSync } from 'node:fs';
import { parseRuneId, type LedgerFinding, type RuneId } from '@unit/bitcoin';
import { verifySet, type GuardianSet } from '@unit/guardian-net';
import { EsploraBlockSource } from './esplora-source';
import { comparisonLines, compareWithApp } from './compare';
import { Validator, type BlockReport } from './follow';
import type { PriceSources } from './prices';
import { serveLedger } from './serve';

const USAGE = `usage: npm run validator -- --chain <esplora URL> (--treasury <address>... --rune <block:tx> | --facts <app URL>)
    [--set <guardian-set.json>...] [--guardians <URL>...]
    [--serve <port> [--serve-host <address>]] [--compare <app URL>] [--until <height>] [--poll <seconds>]
  --chain     any esplora API (the devnet's is http://127.0.0.1:8080/esplora)
  --treasury  a treasury address (repeat for each guardian set's); --rune the UNIT rune id
  --facts     read the treasury address and the rune id from an app's /api/config once (printed)
  --set       a published guardian set file (repeat for each version, oldest first): its treasury,
              its guardians' URLs and keys; each record's signed prices are read from them and checked
  --guardians one more guardian URL to ask for the records' signed prices (repeat)
  --serve     answer GET /ledger/<height>, /ledger/tip, /digest/<height> and /digest/tip on this
              port, on 127.0.0.1 unless --serve-host names another address (an app elsewhere)
  --compare   after each block where a vault moved, compare with the app's /api/ledger/<height>
  --until     stop after this height (default: follow the chain for good)`;

const REGTEST = { ...TEST_NETWORK, bech32: 'bcrt' };
const FACTS_TIMEOUT_MS = 10_000;

/** An address of any network, or an output script in hex: the treasury's output script. */
function treasuryScript(text: string): Uint8Array {
  if (/^([0-9a-f]{2})+$/.test(text)) return hex.decode(text);
  for (const network of [NETWORK, TEST_NETWORK, REGTEST])
    try {
      return OutScript.encode(Address(network).decode(text));
    } catch {
      // another network's address
    }
  throw new Error(`--treasury ${text} is neither an address nor an output script in hex`);
}

/**
 * The published guardian sets, each verified (every member's signature, and from the second on the
 * link to the one before it): the keys a record's signed prices are checked with.
 */
function readSets(paths: string[]): GuardianSet[] {
  const sets: GuardianSet[] = [];
  const raws = paths.map((path) => {
    try {
      return JSON.parse(readFileSync(path, 'utf8')) as unknown;
    } catch (error) {
      throw new Error(`--set ${path} is not a readable guardian set file (${(error as Error).message}).`); // prettier-ignore
    }
  });
  for (const [i, raw] of raws.entries()) {
    const previous = sets.at(-1);
    try {
      sets.push(previous ? verifySet(raw, { previous }) : verifySet(raw));
    } catch (error) {
      throw new Error(`--set ${paths[i]} is not a valid guardian set${previous ? ` after version ${previous.version}` : ''}: ${(error as Error).message}. Give every set file, oldest first.`); // prettier-ignore
    }
  }
  return sets;
}

async function factsFrom(app: string): Promise<{ treasury: string[]; rune: string }> {
  const res = await fetch(`${app.replace(/\/+$/, '')}/api/config`, {
    signal: AbortSignal.timeout(FACTS_TIMEOUT_MS),
  });
  const config = (await res.json()) as { treasuryAddress?: unknown; unitRuneId?: unknown };
  if (typeof config.treasuryAddress !== 'string' || typeof config.unitRuneId !== 'string')
    throw new Error(`${app}/api/config names no treasury address or UNIT rune id`);
  return { treasury: [config.treasuryAddress], rune: config.unitRuneId };
}

const findingLine = (f: LedgerFinding) =>
  `  ${f.kind}${f.vaultId ? ` vault ${f.vaultId}` : ''} tx ${f.txid}: ${f.message}`;

export const blockLines = (r: BlockReport): string[] => [
  `block ${r.height} ${r.hash} ledger ${r.digest} vaults ${r.vaults}`,
  ...r.findings.map(findingLine),
];

export interface ValidatorArgs {
  chain: string;
  treasuryScripts: Uint8Array[];
  unitRuneId: RuneId;
  serve: number | null;
  /** the address --serve listens on (default 127.0.0.1) */
  serveHost?: string;
  compare: string | null;
  /** the guardians to ask for each record's signed prices and the sets to check them with */
  prices?: PriceSources;
  until: number;
  pollMs: number;
}

export async function parseValidatorArgs(argv: string[]): Promise<ValidatorArgs> {
  const { values } = parseArgs({
    args: argv,
    options: {
      chain: { type: 'string' },
      treasury: { type: 'string', multiple: true },
      rune: { type: 'string' },
      facts: { type: 'string' },
      set: { type: 'string', multiple: true },
      guardians: { type: 'string', multiple: true },
      serve: { type: 'string' },
      'serve-host': { type: 'string' },
      compare: { type: 'string' },
      until: { type: 'string' },
      poll: { type: 'string' },
    },
  });
  if (!values.chain) throw new Error('Give --chain <esplora URL>: the chain this validator reads.');
  let treasury = values.treasury ?? [];
  let rune = values.rune;
  if (values.facts) {
    const facts = await factsFrom(values.facts);
    console.log(
      `facts from ${values.facts}: treasury ${facts.treasury.join(', ')}, rune ${facts.rune}`,
    );
    treasury = [...treasury, ...facts.treasury];
    rune ??= facts.rune;
  }
  const sets = readSets(values.set ?? []);
  const fromSets = sets.map((set) => OutScript.encode({ type: 'tr', pubkey: hex.decode(set.groupKey!) })); // prettier-ignore
  const guardians = [...new Set([...sets.flatMap((s) => s.members.map((m) => m.url)), ...(values.guardians ?? [])])]; // prettier-ignore
  if (sets.length)
    console.log(
      `guardian sets ${sets.map((s) => s.version).join(', ')}: each record's signed prices are asked of ${guardians.join(', ')}`,
    );
  if (!(treasury.length || fromSets.length) || !rune)
    throw new Error(
      'Give --treasury (or --set) and --rune, or --facts <app URL>: the treasury and the UNIT rune records are checked against.',
    );
  const number = (text: string | undefined, name: string) => {
    if (text === undefined) return null;
    if (!/^\d{1,9}$/.test(text))
      throw new Error(`--${name} must be a whole number; ${text} is not one.`);
    return Number(text);
  };
  return {
    chain: values.chain,
    treasuryScripts: [...treasury.map(treasuryScript), ...fromSets],
    unitRuneId: parseRuneId(rune),
    serve: number(values.serve, 'serve'),
    ...(values['serve-host'] ? { serveHost: values['serve-host'] } : {}),
    compare: values.compare ?? null,
    until: number(values.until, 'until') ?? Infinity,
    pollMs: (number(values.poll, 'poll') ?? 10) * 1000,
    // An https:// guardian's certificate is checked against the key its set names (prices.ts).
    prices: {
      guardians,
      sets,
      identityKeys: Object.fromEntries(
        sets.flatMap((s) => s.members.map((m) => [m.url, m.identityKey] as const)),
      ),
    },
  };
}

/** Follows the chain, printing each block; answers once past `until`. */
export async function runValidator(args: ValidatorArgs, print = console.log): Promise<Validator> {
  const validator = new Validator(
    new EsploraBlockSource(args.chain),
    { treasuryScripts: args.treasuryScripts, unitRuneId: args.unitRuneId },
    args.prices,
  );
  const server = args.serve === null ? null : serveLedger(validator, args.serve, args.serveHost);
  try {
    for (;;) {
      const reports: BlockReport[] = [];
      await validator.catchUp((r) => {
        blockLines(r).forEach((line) => print(line));
        reports.push(r);
      }, args.until);
      if (args.compare) {
        // The blocks where a vault moved, and the last one read: the app's view differs nowhere else.
        const heights = reports.filter((r, i) => r.changed || i === reports.length - 1);
        for (const { height } of heights) {
          const ours = validator.ledgerAt(height)!;
          const lines = comparisonLines(height, await compareWithApp(args.compare, height, ours));
          lines.forEach((line) => print(line));
        }
      }
      if (validator.height > args.until) return validator;
      await new Promise((resolve) => setTimeout(resolve, args.pollMs));
    }
  } finally {
    server?.close();
  }
}

async function main(): Promise<void> {
  let args: ValidatorArgs;
  try {
    args = await parseValidatorArgs(process.argv.slice(2));
  } catch (error) {
    console.error(`${(error as Error).message}\n${USAGE}`);
    process.exit(2);
  }
  await runValidator(args);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  main().catch((error: unknown) => {
    console.error(`The validator stopped: ${(error as Error).message}`);
    process.exit(1);
  });
}

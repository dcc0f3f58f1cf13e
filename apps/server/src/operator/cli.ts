// `npm run operator -- <command>`: the operator's commands, with the server's own configuration (the
// same environment as `npm start`; README "Operate on signet"):
//   treasury                          the treasury address, its BTC, UNIT, outputs and reservations
//   etch [--name N] [--supply S] [--outputs K] [--fee-rate R]
//                                     etch UNIT (commit, six confirmations, reveal); resumable
//   use <rune id>                     check an existing rune for UNIT_RUNE_ID
//   split <n> [--fee-rate R]          split the treasury's free UNIT into n outputs of its postage
//   treasury move [--fee-rate R]      after a guardian rotation: move the treasury to the newest set
//   reindex                           rebuild the vaults the database lacks from the chain
//   oracle-key <file>                 write a new oracle key file (mode 0600)
import { pathToFileURL } from 'node:url';
import { TEST_NETWORK, NETWORK } from '@scure/btc-signer';
import { pubSchnorr } from '@scure/btc-signer/utils.js';
import { loadConfig, ConfigError, type ServerConfig } from '../config';
import { EsploraChain } from '../chain/esplora';
import { esploraService, serviceFetch } from '../chain/service-failure';
import { OrdIndexer } from '../chain/ord';
import { openStore } from '../store/open';
import { ensurePrivateDir } from '../store/secret-files';
import { migrateToLatest } from '../store/migrations';
import { loadGuardianKeys } from '../store/keys';
import { loadGuardianNetwork } from '../network-client/network-signer';
import { guardianMigrations } from '../cosign';
import { devnetMigrations } from '../devnet/migrations';
import { accountMigrations } from '../auth/migrations';
import { rateLimitMigrations } from '../http/shared-rate-limits';
import { createOracleKeyFile, loadOracleKeys } from '../oracle/keys';
import { bytesToHex, hexToBytes } from '@noble/hashes/utils.js';
import { thresholdHash, thresholdSecret } from '@unit/bitcoin';
import { reindexFromChain } from './reindex';
import { networkLeavesOf, networkTreasuryAddresses, ownLeaves } from './vault-leaves';
import {
  DEFAULT_TREASURY_OUTPUTS,
  DEFAULT_UNIT_NAME,
  DEFAULT_UNIT_SUPPLY,
  statusLines,
  treasuryStatus,
  treasuryAddress,
  type OperatorContext,
} from './treasury';
import { checkSplitCount, splitTreasury } from './treasury-split';
import { etchUnit } from './etch';
import { treasuryCosigner } from './treasury-cosign';
import { moveTreasury } from './treasury-move';
import { treasurySetOf } from '../network-client/treasury-set';
import { checkRune } from './rune-check';
import path from 'node:path';

/** Every call to a chain service gives up after this long, unless CHAIN_TIMEOUT says otherwise. */
const CHAIN_TIMEOUT_MS = 20_000;

const USAGE = `usage: npm run operator -- <command>
  treasury                       the treasury's address, BTC, UNIT, outputs and reservations
  etch [--name UNIT•RUNE•TOKEN] [--supply 100000000000] [--outputs 8] [--fee-rate R]
                                 etch UNIT on a network that has none (resumable)
  use <block:tx>                 check an existing rune for UNIT_RUNE_ID
  split <n> [--fee-rate R]       split the treasury's free UNIT into n outputs
  treasury move [--fee-rate R]   after a guardian rotation: move the treasury to the newest set
  reindex                        rebuild the vaults the database lacks from the chain
  oracle-key <file>              write a new oracle key file (mode 0600)`;

/** A command line the CLI does not know: one line and exit code 2, as a shell expects. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

/** `--name value` options after the positional arguments. */
export function parseOptions(args: readonly string[]): {
  positional: string[];
  options: Map<string, string>;
} {
  const positional: string[] = [];
  const options = new Map<string, string>();
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg.startsWith('--')) {
      const value = args[i + 1];
      if (value === undefined)
        throw new UsageError(
          `${arg} needs a value: run \`npm run operator -- --help\` for the commands`,
        );
      options.set(arg.slice(2), value);
      i++;
    } else positional.push(arg);
  }
  return { positional, options };
}

const wholeNumber = (text: string | undefined, what: string): number => {
  if (text === undefined || !/^\d+$/.test(text)) throw new Error(`${what} must be a whole number`);
  return Number(text);
};

/** With the guardian network: the treasury is under the newest set's key (moved, or no rotation). */
const treasuryIsNewest = (ctx: OperatorContext) =>
  bytesToHex(ctx.treasuryPubkey) === ctx.guardianNetwork?.set.groupKey;

/** esplora for the reads around the Chain port: bounded, its failures naming host and cause. */
const esploraFetch = (config: ServerConfig, timeoutMs: number) =>
  serviceFetch(esploraService(config.services.esploraUrl), timeoutMs);

async function feeRateOf(ctx: OperatorContext, given: string | undefined): Promise<number> {
  if (given !== undefined) {
    const rate = Number(given);
    if (!Number.isFinite(rate) || rate < 1 || rate > 10_000)
      throw new Error('--fee-rate must be sat/vB from 1 to 10000');
    return rate;
  }
  return (await ctx.chain.fees()).halfHourFee;
}

export async function runOperator(
  args: readonly string[],
  env: NodeJS.ProcessEnv,
  say: (line: string) => void,
  pollMs = 30_000,
): Promise<void> {
  const [command, ...rest] = args;
  if (command === undefined || ['--help', '-h', 'help'].includes(command)) {
    say(USAGE);
    return;
  }
  if (command === 'oracle-key') {
    const file = rest[0];
    if (!file)
      throw new UsageError('oracle-key needs a file: npm run operator -- oracle-key <file>');
    createOracleKeyFile(path.resolve(file));
    say(
      `oracle key file ${path.resolve(file)} written (mode 0600): set ORACLE_KEY_FILE to it and back it up`,
    );
    return;
  }
  if (!['treasury', 'etch', 'use', 'split', 'reindex'].includes(command))
    throw new UsageError(
      `unknown command "${command}": run \`npm run operator -- --help\` for the commands`,
    );
  // The treasury is funded, UNIT etched or an existing rune checked before a rune id is set (README
  // "Operate on signet" steps 3 and 4): the rest of the configuration must be whole.
  const config = loadConfig(env, {
    runeIdRequired: !['treasury', 'etch', 'use'].includes(command ?? ''),
  });
  if (config.network === 'devnet')
    throw new Error(
      'the devnet funds its treasury at genesis: these commands are for real networks',
    );
  // `use` reads the treasury's holding of the rune it checks, before UNIT_RUNE_ID names it.
  const runeId = command === 'use' && rest[0] ? rest[0] : config.unitRuneId;
  // An operator's command may wait longer than a user's request (CHAIN_TIMEOUT when set).
  const timeoutMs = env.CHAIN_TIMEOUT?.trim() ? config.chainTimeoutMs : CHAIN_TIMEOUT_MS;
  await withContext(config, runeId, { say, pollMs, timeoutMs }, async (ctx) => {
    const { positional, options } = parseOptions(rest);
    switch (command) {
      case 'reindex': {
        // Vaults the database already has are left as they are; the others come from the chain.
        const oracleKeys = await loadOracleKeys(ctx.db, {
          file: config.oracleKeyFile,
          network: config.network,
        });
        const result = await reindexFromChain({
          db: ctx.db,
          esploraUrl: config.services.esploraUrl,
          fetch: esploraFetch(config, timeoutMs),
          treasuryAddresses:
            config.guardianNetwork.mode === 'off'
              ? [treasuryAddress(ctx).address]
              : networkTreasuryAddresses(config, ctx.network),
          leaves:
            config.guardianNetwork.mode === 'off'
              ? ownLeaves({
                  guardPubkey: ctx.guardPubkey,
                  thresholdHash: (th, stamp) =>
                    thresholdHash(thresholdSecret(oracleKeys.oracleSecret, th, stamp)),
                  network: ctx.network,
                })
              : networkLeavesOf(config, ctx.db, ctx.network),
          now: ctx.now,
          log: { info: () => undefined, warn: () => undefined },
        });
        say(
          `reindex: ${result.restored.length} vaults restored, ${result.skipped.length} already known`,
        );
        for (const id of result.keyUnknown)
          say(
            `  ${id}: opened with a version 1 record, never spent since; its key is not on the chain yet`,
          );
        // Never guessed: a vault whose oracles did not answer is rebuilt by a later reindex.
        for (const { vaultId, problem } of result.leavesUnknown)
          say(`  ${vaultId}: not rebuilt: ${problem}`);
        return;
      }
      case 'treasury':
        if (positional[0] === 'move') {
          await moveTreasury(ctx, await feeRateOf(ctx, options.get('fee-rate')));
          return;
        }
        // Known offline: the address to fund comes first, whatever the chain answers after it.
        say(`treasury address  ${treasuryAddress(ctx).address}`);
        for (const line of statusLines(
          await treasuryStatus(ctx, config.unitRuneId !== null),
          config.unitRuneId,
        ))
          say(line);
        if (ctx.guardianNetwork && !treasuryIsNewest(ctx))
          say(
            `after a guardian rotation: \`treasury move\` moves it to set ${ctx.guardianNetwork.set.version}`,
          );
        return;
      case 'split': {
        const n = wholeNumber(positional[0], 'split <n>');
        checkSplitCount(n);
        const result = await splitTreasury(
          ctx,
          config.unitRuneId!,
          n,
          await feeRateOf(ctx, options.get('fee-rate')),
        );
        say(`split ${result.txid}: ${result.outputs} outputs, fee ${result.fee} sats`);
        return;
      }
      case 'use': {
        const id = positional[0];
        if (!id) throw new UsageError('use needs a rune id: npm run operator -- use <block:tx>');
        const rune = await checkRune(ctx, id);
        say(
          `${rune.runeId} is ${rune.name ?? 'a rune with a reserved name'}, divisibility ${rune.divisibility}, premine ${rune.premine}`,
        );
        say(`set UNIT_RUNE_ID=${rune.runeId} in the server's environment`);
        return;
      }
      case 'etch': {
        const supply = options.get('supply') ?? String(DEFAULT_UNIT_SUPPLY);
        if (!/^\d{1,30}$/.test(supply))
          throw new Error('--supply must be UNIT hundredths, a whole number');
        const plan = await etchUnit(ctx, {
          name: options.get('name') ?? DEFAULT_UNIT_NAME,
          supply: BigInt(supply),
          outputs: options.has('outputs')
            ? wholeNumber(options.get('outputs'), '--outputs')
            : DEFAULT_TREASURY_OUTPUTS,
          feeRate: () => feeRateOf(ctx, options.get('fee-rate')),
        });
        say(`etched ${plan.name} as ${plan.runeId} (reveal ${plan.revealTxid})`);
        say(`set UNIT_RUNE_ID=${plan.runeId} in the server's environment`);
        return;
      }
    }
  });
}

async function withContext(
  config: ServerConfig,
  unitRuneId: string | null,
  { say, pollMs, timeoutMs }: { say: (line: string) => void; pollMs: number; timeoutMs: number },
  work: (ctx: OperatorContext) => Promise<void>,
): Promise<void> {
  ensurePrivateDir(config.dataDir);
  const store = await openStore({
    databaseUrl: config.databaseUrl,
    file: path.join(config.dataDir, 'unit.db'),
  });
  try {
    // The same tables the server makes, so the command works before the server's first start too.
    await migrateToLatest(store.db, {
      ...devnetMigrations,
      ...guardianMigrations,
      ...accountMigrations,
      ...rateLimitMigrations,
    });
    const keys = await loadGuardianKeys(store.db, config);
    // With the guardian network the vaults' key is the newest set's group key, the treasury the
    // first set's until `treasury move` moves it (network-client/treasury-set.ts).
    const sets =
      config.guardianNetwork.mode === 'off'
        ? null
        : loadGuardianNetwork(config.guardianNetwork.dir);
    const groupKey = sets && hexToBytes(sets.set.groupKey!);
    const treasurySet = sets && (await treasurySetOf(store.db, [...sets.older, sets.set]));
    const treasuryKey = treasurySet && hexToBytes(treasurySet.groupKey!);
    // Runes read as the server reads them (RUNES_API), so an ord-only network works here too.
    const chain = new EsploraChain({
      ...config.services,
      network: config.network,
      runesApi: config.runesApi,
      ...(unitRuneId ? { unitRuneId } : {}),
      timeoutMs,
    });
    const ord =
      config.runesApi === 'ord'
        ? new OrdIndexer({
            url: config.services.runesUrl,
            unitRuneId: unitRuneId ?? '',
            timeoutMs,
          })
        : null;
    await work({
      chain,
      esploraUrl: config.services.esploraUrl,
      fetch: esploraFetch(config, timeoutMs),
      network: config.network === 'mainnet' ? NETWORK : TEST_NETWORK,
      treasuryKey: keys.treasurySecretKey,
      guardPubkey: groupKey ?? hexToBytes(keys.guardPubkey),
      treasuryPubkey: treasuryKey ?? pubSchnorr(keys.treasurySecretKey),
      treasuryIsGroupKey: groupKey !== null,
      // The operator's CLI coordinates the running network itself, as the app does (GUARDIAN_DIR).
      ...(sets
        ? {
            cosignTreasury: treasuryCosigner(sets, { say, set: treasurySet! }),
            guardianNetwork: sets,
          }
        : {}),
      db: store.db,
      dataDir: config.dataDir,
      say,
      now: () => Math.floor(Date.now() / 1000),
      sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
      pollMs,
      ord,
      unitRuneId,
    });
  } finally {
    await store.close();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const pollMs = Number(process.env.OPERATOR_POLL_MS ?? 30_000);
  runOperator(process.argv.slice(2), process.env, (line) => console.log(line), pollMs).then(
    () => process.exit(0),
    (err: unknown) => {
      console.error(err instanceof Error ? err.message : String(err));
      process.exit(err instanceof ConfigError || err instanceof UsageError ? 2 : 1);
    },
  );
}

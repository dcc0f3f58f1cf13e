// `npm run guardian -- <command>`: run one guardian node, generate the group key among n local
// nodes, or ask the network for a signature. A node's command line names it (`start --id 2`), so an
// operator tells the processes apart in `ps` and can stop one.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import { bytesToHex, parseHex } from './canonical';
import { coordinatorKeyCommand, guardianDir, initCommand, localDkg, membersDkg } from './cli-dkg';
import { parseSetBody, verifySet } from './guardian-set';
import { loadIdentity } from './identity';
import * as lp from './local-process';
import { guardianStopped, LOCAL_STOPPED_FILE } from './local-stopped';
import {
  INSECURE_PLAIN_HTTP_ENV,
  INSECURE_PLAIN_HTTP_FLAG,
  plainHttpAllowed,
  plainSetProblem,
} from './node-http';
import type { GuardianNode, NodePriceOptions } from './node';
import type { NodeValidator } from './signing-rounds';
import { approve } from './approve';
import { startRosterProblem } from './approve-first';
import { reshareCommand } from './cli-reshare';
import { refreshCommand } from './cli-refresh';
import { repairCommand } from './cli-repair';
import { recoverCommand } from './cli-recover';
import { USAGE, UsageError } from './cli-usage';
import { positiveInt, priceOptions } from './cli-price';

const CLI = fileURLToPath(import.meta.url);

/**
 * The policies for tests. A real guardian runs `--policy vault` (vault-policy/policy.ts): its own
 * check of every vault request against its own chain view and price.
 */
const POLICIES: Record<string, NodeValidator> = {
  'approve-all': () => ({ approve: true }),
  'refuse-all': () => ({
    approve: false,
    reason: 'this guardian refuses every request (policy refuse-all)',
  }),
};

function log(event: Record<string, unknown>): void {
  process.stdout.write(JSON.stringify({ at: new Date().toISOString(), ...event }) + '\n');
}

/** The flags `start` takes that `local` passes on to every guardian it runs. */
const START_FLAGS = [
  'host',
  'policy',
  'chain',
  'app',
  'oracle-key',
  'rune-id',
  'network',
  'feeds',
  'price-tick',
  'feed-timeout',
  'max-spread',
  'max-fee-rate',
] as const;
const startFlagOptions = Object.fromEntries(
  START_FLAGS.map((flag) => [flag, { type: 'string' as const }]),
) as Record<(typeof START_FLAGS)[number], { type: 'string' }>;

/**
 * `--policy vault`: the guardian's own validation against its own chain view (--chain) and the
 * app's public routes (--app), with its facts pinned by flag (vault-policy/pinned-facts.ts: off
 * the devnet every one, on the devnet the rest read from the app once, at start, and logged as
 * `facts-from-app`). The treasury is `OP_1 <group key>` (policy.ts), never the app's word.
 */
async function vaultPolicy(
  values: Partial<Record<(typeof START_FLAGS)[number], string>>,
  price: NodePriceOptions | undefined,
) {
  // Loaded here, not with the CLI: every other command (a DKG, a resharing) starts without them.
  const [{ termConfigFromEnv }, { HttpChainView }, { vaultFacts }, { VaultPolicy }] = await Promise.all([import('@unit/protocol'), import('./vault-policy/chain-view'), import('./vault-policy/pinned-facts'), import('./vault-policy/policy')]); // prettier-ignore
  const pinned = await vaultFacts(values, price?.feeds.map((f) => f.kind) ?? []);
  const policy = new VaultPolicy({
    chain: new HttpChainView({ esplora: pinned.chain, app: values.app! }),
    facts: pinned.facts,
    maxTreasuryFeeRate: positiveInt(values['max-fee-rate'], '--max-fee-rate'),
    // The term a new vault's must be: the same two settings the app reads.
    term: termConfigFromEnv(process.env, pinned.facts.network),
  });
  return { validate: policy.decide.bind(policy) as NodeValidator, ...pinned };
}

const identityKeyArg = (key: string): string => {
  if (!/^[0-9a-f]{64}$/.test(key))
    throw new Error(
      '--coordinator takes the coordinator’s identity key: 32 bytes of lowercase hex',
    );
  return key;
};

async function start(args: string[]): Promise<void> {
  const { values } = parseArgs({
    args,
    options: {
      ...startFlagOptions,
      id: { type: 'string' },
      dir: { type: 'string' },
      port: { type: 'string' },
      roster: { type: 'string' },
      coordinator: { type: 'string' },
      'database-url-file': { type: 'string' },
      'exit-with-parent': { type: 'boolean' },
      'named-in-set': { type: 'boolean' },
      'insecure-plain-http': { type: 'boolean' },
    },
  });
  values.host ??= '127.0.0.1';
  values.policy ??= 'refuse-all';
  const id = values.id === undefined ? undefined : Number(values.id);
  if ((id !== undefined && (!Number.isInteger(id) || id < 1)) || !values.dir)
    throw new UsageError(
      `start needs --dir <guardian dir> (and --id <n>, if given, a positive integer)\n${USAGE}`,
    );
  const price = priceOptions(values.dir, values);
  let validate = POLICIES[values.policy];
  if (values.policy === 'vault') {
    const { validate: decide, facts, chain, fromApp } = await vaultPolicy(values, price);
    validate = decide;
    log({ guardian: id, event: 'policy', policy: 'vault', ...facts, chain });
    if (fromApp.length > 0) log({ guardian: id, event: 'facts-from-app', devnet: true, fromApp });
  }
  if (!validate) throw new Error(`unknown policy ${values.policy}`);
  mkdirSync(values.dir, { recursive: true, mode: 0o700 });
  const roster = values.roster
    ? parseSetBody(JSON.parse(readFileSync(values.roster, 'utf8')))
    : undefined;
  const refused = roster ? startRosterProblem(values.dir, roster) : null;
  if (refused)
    throw new Error(`This guardian does not join the roster of ${values.roster}: ${refused}.`);
  // A guardian started without --id learns its id from its set, or from its first roster.
  let node: GuardianNode | undefined = undefined;
  const { GuardianNode: Node } = await import('./node');
  node = new Node({
    ...(id === undefined ? {} : { id }),
    dir: values.dir,
    namedInSet: values['named-in-set'] === true,
    ...(values['database-url-file'] ? { databaseUrlFile: values['database-url-file'] } : {}),
    ...(price ? { price } : {}),
    ...(values.port === undefined ? {} : { port: Number(values.port) }),
    host: values.host!,
    insecurePlainHttp: values['insecure-plain-http'] === true,
    validate,
    log: (e) => log({ guardian: id ?? node?.health().id, ...e }),
    ...(roster ? { roster } : {}),
    ...(values.coordinator ? { firstCoordinator: identityKeyArg(values.coordinator) } : {}),
  });
  const port = await node.listen();
  log({ event: 'listening', port, ...node.health() });
  const stop = () => {
    setTimeout(() => process.exit(1), 3_000).unref();
    void node.close().then(() => process.exit(0));
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  if (values['exit-with-parent']) lp.onParentGone(stop);
}

function spawnGuardian(dir: string, id: number, port: number, extra: string[]): ChildProcess {
  const child = spawn(
    process.execPath,
    [
      // The source runs through tsx; a build of this file (one plain module) runs on node alone.
      ...(CLI.endsWith('.ts') ? ['--import', 'tsx'] : []),
      CLI,
      'start',
      '--id',
      String(id),
      '--dir',
      guardianDir(dir, id),
      '--port',
      String(port),
      // Its stdin is a pipe from this process: a guardian never outlives the process that ran it.
      '--exit-with-parent',
      // A one-machine network made for local development with plain HTTP (its set lists http://
      // URLs) says so on each guardian's command line. After the id and directory, so `ps` reads
      // `start --id <n> --dir <dir>` as the docs say.
      ...(plainHttpAllowed() ? [INSECURE_PLAIN_HTTP_FLAG] : []),
      ...extra,
    ],
    { stdio: ['pipe', 'inherit', 'pipe'] },
  );
  lastErrors.set(child, lp.lastErrorLine(child));
  return child;
}

/** Each guardian child's last stderr line (local-process.ts lastErrorLine). */
const lastErrors = new WeakMap<ChildProcess, () => string | null>();

function networkOptions(args: string[]) {
  const { values } = parseArgs({
    args,
    options: {
      dir: { type: 'string' },
      n: { type: 'string', default: '3' },
      t: { type: 'string', default: '2' },
      'base-port': { type: 'string', default: '7401' },
      message: { type: 'string' },
      'threshold-cents': { type: 'string' },
      ...startFlagOptions,
      'exit-with-parent': { type: 'boolean' },
    },
  });
  if (!values.dir) throw new UsageError(`--dir <dir> is required\n${USAGE}`);
  // The slice's embedded network approves what it is asked unless told otherwise.
  values.policy ??= 'approve-all';
  const startArgs = START_FLAGS.flatMap((flag) =>
    values[flag] === undefined ? [] : [`--${flag}`, values[flag]],
  );
  return {
    dir: resolve(values.dir),
    n: Number(values.n),
    t: Number(values.t),
    basePort: Number(values['base-port']),
    message: values.message,
    thresholdCents: positiveInt(values['threshold-cents'], '--threshold-cents'),
    startArgs,
    exitWithParent: values['exit-with-parent'] === true,
  };
}

async function dkg(args: string[]): Promise<void> {
  if (args.includes('--members')) return membersDkg(args, log);
  const o = networkOptions(args);
  await localDkg(o, { spawnGuardian, waitHealthy: lp.waitHealthy, log });
}

/**
 * The embedded default: a DKG if the directory has no set yet, then every guardian as its own
 * process, each started as a member of the published set (`--named-in-set`: it never makes a new
 * identity or oracle secret). A guardian that dies (kill -9 included) is started again after a
 * second and comes back with its share and store; one that fails again and again right after its
 * start (RestartPolicy: a lost directory) is left stopped, reported once (guardianStopped).
 */
async function local(args: string[]): Promise<void> {
  const o = networkOptions(args);
  await dkg(args);
  const set = verifySet(JSON.parse(readFileSync(join(o.dir, 'guardian-set.json'), 'utf8')));
  const plain = plainSetProblem(
    set.members.map((m) => m.url),
    o.dir,
  );
  if (plain) throw new Error(plain);
  rmSync(join(o.dir, LOCAL_STOPPED_FILE), { force: true });
  let stopping = false;
  const running = new Map<number, ChildProcess>();
  const launch = (id: number, port: number, policy = new lp.RestartPolicy()) => {
    const child = spawnGuardian(o.dir, id, port, ['--named-in-set', ...o.startArgs]);
    const startedAt = Date.now();
    running.set(id, child);
    child.once('exit', (code, signal) => {
      if (stopping) return;
      const reason = lastErrors.get(child)?.() ?? null;
      if (!policy.exited(startedAt, Date.now()))
        return log(guardianStopped(o.dir, guardianDir(o.dir, id), { guardian: id, failures: policy.failures, reason })); // prettier-ignore
      log({ event: 'guardian-exited', guardian: id, code, signal, restartInMs: 1_000 });
      setTimeout(() => !stopping && launch(id, port, policy), 1_000);
    });
  };
  for (const m of set.members) launch(m.id, Number(new URL(m.url).port));
  log({ event: 'network-running', t: set.t, n: set.n, groupKey: set.groupKey });
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
    if (o.exitWithParent) lp.onParentGone(resolve);
  });
  stopping = true;
  await lp.stopChildren([...running.values()]);
  process.exit(0);
}

async function sign(args: string[]): Promise<void> {
  const o = networkOptions(args);
  const set = verifySet(JSON.parse(readFileSync(join(o.dir, 'guardian-set.json'), 'utf8')));
  const { Coordinator } = await import('./coordinator');
  const coordinator = new Coordinator(
    set,
    loadIdentity(join(o.dir, 'coordinator', 'identity.json')),
  );
  const result = await coordinator.sign(
    parseHex(o.message, 32, 'message'),
    o.thresholdCents === undefined
      ? { kind: 'manual' }
      : { kind: 'liquidation', thresholdCents: o.thresholdCents },
    (e) => log({ event: 'progress', ...e }),
  );
  log({
    event: 'signed',
    signature: bytesToHex(result.signature),
    signers: result.signers,
    groupKey: set.groupKey,
  });
}

/** Prints each guardian's signed price (or why it has none) and the quorum's quote. */
async function price(args: string[]): Promise<void> {
  const o = networkOptions(args);
  const set = verifySet(JSON.parse(readFileSync(join(o.dir, 'guardian-set.json'), 'utf8')));
  const { collectPriceQuorum } = await import('./price/quorum');
  const quote = await collectPriceQuorum(set);
  for (const a of quote.answers)
    log(
      a.price
        ? {
            event: 'guardian-price',
            guardian: a.guardian,
            priceCents: a.price.priceCents,
            time: a.price.time,
          }
        : { event: 'guardian-price', guardian: a.guardian, error: a.error },
    );
  const { answers: _answers, ...summary } = quote;
  log({ event: 'quorum', t: set.t, n: set.n, ...summary });
  if (!quote.valid) process.exitCode = 1;
}

async function main(): Promise<void> {
  const [command, ...args] = process.argv.slice(2);
  // `dkg`, `local` and `rotate` run a network on this machine: --insecure-plain-http makes it
  // (and every guardian they start) plain HTTP, for local development only. `start` reads its own.
  const plainFlag = command !== 'start' && args.includes(INSECURE_PLAIN_HTTP_FLAG);
  if (plainFlag) process.env[INSECURE_PLAIN_HTTP_ENV] = '1';
  const rest = plainFlag ? args.filter((a) => a !== INSECURE_PLAIN_HTTP_FLAG) : args;
  if (command === undefined || ['--help', '-h', 'help'].includes(command)) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  if (command === 'init') return initCommand(rest);
  if (command === 'coordinator-key') return coordinatorKeyCommand(rest);
  if (command === 'start') return start(rest);
  if (command === 'dkg') return dkg(rest);
  if (command === 'local') return local(rest);
  if (command === 'sign') return sign(rest);
  if (command === 'price') return price(rest);
  if (command === 'rotate')
    return (await import('./rotate')).rotate(rest, { spawnGuardian, waitHealthy: lp.waitHealthy, log }); // prettier-ignore
  if (command === 'approve') return approve(rest, (line) => process.stdout.write(`${line}\n`));
  if (command === 'reshare') return reshareCommand(rest, log);
  if (command === 'refresh') return refreshCommand(rest, log);
  if (command === 'repair') return repairCommand(rest, log);
  if (command === 'recover') return recoverCommand(rest, log);
  throw new UsageError(
    `unknown command "${command}": run \`npm run guardian -- --help\` for the commands`,
  );
}

main().catch((e: unknown) => {
  process.stderr.write(`guardian: ${(e as Error).message}\n`);
  // parseArgs's own refusals (an unknown or malformed flag) are usage errors too.
  const parseArgsError = String((e as { code?: unknown }).code).startsWith('ERR_PARSE_ARGS');
  process.exit(e instanceof UsageError || parseArgsError ? 2 : 1);
});

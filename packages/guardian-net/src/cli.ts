// `npm run guardian -- <command>`: run one guardian node, generate the group key among n local
// nodes, or ask the network for a signature. A node's command line names it (`start --id 2`), so an
// operator tells the processes apart in `ps` and can stop one.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import { bytesToHex, parseHex } from './canonical';
import { Coordinator, runDkg } from './coordinator';
import { parseSetBody, verifySet, type GuardianSetBody } from './guardian-set';
import { ensureIdentity, loadIdentity } from './identity';
import { freeLoopbackPorts, onParentGone, stopChildren } from './local-process';
import { GuardianNode, type NodePriceOptions } from './node';
import type { NodeValidator } from './signing-rounds';
import { GUARDIAN_FEED_KINDS, parsePriceFeeds } from './price/feeds';
import { collectPriceQuorum } from './price/quorum';
import { rotate } from './rotate';
import { HttpChainView } from './vault-policy/chain-view';
import { vaultFacts } from './vault-policy/pinned-facts';
import { VaultPolicy } from './vault-policy/policy';
import { ensureOracleSecret } from './oracle/threshold-oracle';

const CLI = fileURLToPath(import.meta.url);

const USAGE = `usage:
  guardian start --id <n> --dir <guardian dir> [--port <p>, default: its URL's] [--host 127.0.0.1] [--roster <roster.json>]
                 [--policy vault|approve-all|refuse-all] [--app <app origin>] [--network devnet|signet|mutinynet|mainnet]
                 [--chain <its own esplora URL> --rune-id <block:tx> --oracle-key <hex>: each required off the devnet;
                  on the devnet read from --app when not given; the treasury is the group key's]
                 [--max-fee-rate <sat/vB>, 500: the most an operator's treasury split may pay]
                 [--feeds kind@url,..., default: <guardian dir>/feeds.txt] [--price-tick <ms>, 30000] [--feed-timeout <ms>, 5000]
                 [--database-url-file <file holding a postgres:// URL>, default: <guardian dir>/database-url if
                  present: its store in its own PostgreSQL database, else <guardian dir>/store.sqlite]
                 [--exit-with-parent: stop when the process that started it is gone]
  guardian dkg --dir <network dir> [--n 3] [--t 2] [--base-port 7401, 0: free ports] [--exit-with-parent]
  guardian local --dir <network dir> [--n 3] [--t 2] [--base-port 7401] [--exit-with-parent] [any start flag, given to every guardian]
                 (dkg if needed, then run all n)
  guardian sign --dir <network dir> --message <32-byte hex> [--threshold-cents <n>: a liquidation]
  guardian price --dir <network dir>   (each guardian's signed price and the quorum)
  guardian rotate --dir <network dir> --next-dir <dir> [--replace <id>,...] [--n N] [--t T] [--base-port <first new member's port>]
                 (the next set by a new DKG, handed over by the running current set)`;

/**
 * The slice's policies. A real guardian validates the vault request against its own chain view and
 * price (docs/guardian-network.md, "The plan"); until that is wired, the operator picks one.
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

function guardianDir(dir: string, id: number): string {
  return join(dir, `guardian-${id}`);
}

const positiveInt = (text: string | undefined, what: string): number | undefined => {
  if (text === undefined) return undefined;
  const n = Number(text);
  if (!Number.isSafeInteger(n) || n <= 0) throw new Error(`${what} must be a positive integer`);
  return n;
};

/** A guardian's own feeds: --feeds, else the feeds.txt its operator put in its directory. */
function priceOptions(
  dir: string,
  values: { feeds?: string; 'price-tick'?: string; 'feed-timeout'?: string },
): NodePriceOptions | undefined {
  const file = join(dir, 'feeds.txt');
  const text = values.feeds ?? (existsSync(file) ? readFileSync(file, 'utf8') : '');
  const setting = values.feeds === undefined ? file : '--feeds';
  const { feeds, problems } = parsePriceFeeds(
    text.replace(/\s+/g, ','),
    setting,
    GUARDIAN_FEED_KINDS,
  );
  if (problems.length > 0) throw new Error(problems.join('; '));
  if (feeds.length === 0) return undefined;
  const tickMs = positiveInt(values['price-tick'], '--price-tick');
  const timeoutMs = positiveInt(values['feed-timeout'], '--feed-timeout');
  return { feeds, ...(tickMs ? { tickMs } : {}), ...(timeoutMs ? { timeoutMs } : {}) };
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
  const pinned = await vaultFacts(values, price?.feeds.map((f) => f.kind) ?? []);
  const policy = new VaultPolicy({
    chain: new HttpChainView({ esplora: pinned.chain, app: values.app! }),
    facts: pinned.facts,
    maxTreasuryFeeRate: positiveInt(values['max-fee-rate'], '--max-fee-rate'),
  });
  return { validate: policy.decide.bind(policy) as NodeValidator, ...pinned };
}

async function start(args: string[]): Promise<void> {
  const { values } = parseArgs({
    args,
    options: {
      ...startFlagOptions,
      id: { type: 'string' },
      dir: { type: 'string' },
      port: { type: 'string' },
      roster: { type: 'string' },
      'database-url-file': { type: 'string' },
      'exit-with-parent': { type: 'boolean' },
    },
  });
  values.host ??= '127.0.0.1';
  values.policy ??= 'refuse-all';
  const id = Number(values.id);
  if (!Number.isInteger(id) || id < 1 || !values.dir) throw new Error(USAGE);
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
  ensureOracleSecret(join(values.dir, 'oracle.json')); // its own oracle (oracle/threshold-oracle.ts)
  const node = new GuardianNode({
    id,
    dir: values.dir,
    ...(values['database-url-file'] ? { databaseUrlFile: values['database-url-file'] } : {}),
    ...(price ? { price } : {}),
    ...(values.port === undefined ? {} : { port: Number(values.port) }),
    host: values.host!,
    validate,
    log: (e) => log({ guardian: id, ...e }),
    ...(roster ? { roster } : {}),
  });
  const port = await node.listen();
  log({ guardian: id, event: 'listening', port, ...node.health() });
  const stop = () => {
    setTimeout(() => process.exit(1), 3_000).unref();
    void node.close().then(() => process.exit(0));
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  if (values['exit-with-parent']) onParentGone(stop);
}

function spawnGuardian(dir: string, id: number, port: number, extra: string[]): ChildProcess {
  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
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
      ...extra,
    ],
    { stdio: ['pipe', 'inherit', 'inherit'] },
  );
  return child;
}

async function waitHealthy(url: string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      const res = await fetch(`${url}/v1/health`, { signal: AbortSignal.timeout(1_000) });
      if (res.ok) return;
    } catch {
      // not up yet
    }
    if (Date.now() > deadline) throw new Error(`${url} did not come up`);
    await new Promise((r) => setTimeout(r, 150));
  }
}

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
  if (!values.dir) throw new Error(USAGE);
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

/** Writes the roster (identity keys and URLs of n local guardians, on `ports`, and one coordinator). */
function makeRoster(dir: string, n: number, t: number, ports: number[]): GuardianSetBody {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const members = Array.from({ length: n }, (_, i) => {
    const id = i + 1;
    mkdirSync(guardianDir(dir, id), { recursive: true, mode: 0o700 });
    const identity = ensureIdentity(join(guardianDir(dir, id), 'identity.json'));
    return {
      id,
      name: `guardian-${id}`,
      identityKey: identity.publicKey,
      url: `http://127.0.0.1:${ports[i]}`,
    };
  });
  mkdirSync(join(dir, 'coordinator'), { recursive: true, mode: 0o700 });
  const coordinator = ensureIdentity(join(dir, 'coordinator', 'identity.json'));
  const roster = parseSetBody({
    kind: 'unit/guardian-set',
    version: 0,
    t,
    n,
    members,
    coordinators: [{ name: 'coordinator', identityKey: coordinator.publicKey }],
  });
  writeFileSync(join(dir, 'roster.json'), JSON.stringify(roster, null, 2) + '\n');
  return roster;
}

async function dkg(args: string[]): Promise<void> {
  const o = networkOptions(args);
  const setPath = join(o.dir, 'guardian-set.json');
  if (existsSync(setPath)) {
    log({ event: 'dkg-skipped', reason: `${setPath} exists` });
    return;
  }
  // Base port 0: free ports now; they are in the set, so every later start uses the same ones.
  const ports =
    o.basePort === 0
      ? await freeLoopbackPorts(o.n)
      : Array.from({ length: o.n }, (_, i) => o.basePort + i);
  const roster = makeRoster(o.dir, o.n, o.t, ports);
  const children = roster.members.map((m) =>
    spawnGuardian(o.dir, m.id, Number(new URL(m.url).port), [
      '--roster',
      join(o.dir, 'roster.json'),
    ]),
  );
  const watching = o.exitWithParent
    ? onParentGone(() => void stopChildren(children).then(() => process.exit(1)))
    : () => undefined;
  try {
    await Promise.all(roster.members.map((m) => waitHealthy(m.url)));
    const set = await runDkg(roster, loadIdentity(join(o.dir, 'coordinator', 'identity.json')));
    writeFileSync(setPath, JSON.stringify(set, null, 2) + '\n');
    log({ event: 'dkg-complete', t: set.t, n: set.n, groupKey: set.groupKey, set: setPath });
  } finally {
    watching();
    await stopChildren(children);
  }
}

/**
 * The embedded default: a DKG if the directory has no set yet, then every guardian as its own
 * process. A guardian that dies (kill -9 included) is started again after a second; it comes back
 * with its share and store and abandons any nonce it had issued.
 */
async function local(args: string[]): Promise<void> {
  const o = networkOptions(args);
  await dkg(args);
  const set = verifySet(JSON.parse(readFileSync(join(o.dir, 'guardian-set.json'), 'utf8')));
  let stopping = false;
  const running = new Map<number, ChildProcess>();
  const launch = (id: number, port: number) => {
    const child = spawnGuardian(o.dir, id, port, o.startArgs);
    running.set(id, child);
    child.once('exit', (code, signal) => {
      if (stopping) return;
      log({ event: 'guardian-exited', guardian: id, code, signal, restartInMs: 1_000 });
      setTimeout(() => !stopping && launch(id, port), 1_000);
    });
  };
  for (const m of set.members) launch(m.id, Number(new URL(m.url).port));
  log({ event: 'network-running', t: set.t, n: set.n, groupKey: set.groupKey });
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
    if (o.exitWithParent) onParentGone(resolve);
  });
  stopping = true;
  await stopChildren([...running.values()]);
  process.exit(0);
}

async function sign(args: string[]): Promise<void> {
  const o = networkOptions(args);
  const set = verifySet(JSON.parse(readFileSync(join(o.dir, 'guardian-set.json'), 'utf8')));
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
  const [command, ...rest] = process.argv.slice(2);
  if (command === 'start') return start(rest);
  if (command === 'dkg') return dkg(rest);
  if (command === 'local') return local(rest);
  if (command === 'sign') return sign(rest);
  if (command === 'price') return price(rest);
  if (command === 'rotate') return rotate(rest, { spawnGuardian, waitHealthy, log });
  throw new Error(USAGE);
}

main().catch((e: unknown) => {
  process.stderr.write(`guardian: ${(e as Error).message}\n`);
  process.exit(1);
});

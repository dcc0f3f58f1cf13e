// GUARDIAN_NETWORK=local (the devnet's `npm start` default, main.ts): this server runs a t-of-n
// guardian network on this machine. At the first start it makes the network's key (`guardian dkg`:
// n guardian processes, no dealer) into GUARDIAN_DIR; then, once the server listens, it runs
// `guardian local`, which keeps the n guardians running as their own processes on loopback and
// restarts one that dies (kill -9 included). Each guardian's command line names it
// (`cli.ts start --id 2 ...`), so an operator tells them apart in `ps` and can stop one.
// No guardian outlives this server: each child's stdin is a pipe from its parent (`--exit-with-
// parent`), so when the server is gone, SIGKILL included, `guardian local` and its guardians leave.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import type { Logger } from 'pino';
import {
  fanOut,
  HEALTH_MAX_BYTES,
  readPublic,
  verifySet,
  type GuardianSet,
} from '@unit/guardian-net';
import type { PriceFeed } from '@unit/guardian-net/price';
import { ConfigError, REPO_ROOT, type ServerConfig } from '../config';

/**
 * A build of this server (one plain module, as the test suites make) names a build of the guardian
 * CLI beside it, which starts without tsx's loader: about a second of CPU less for each of the
 * n + 1 processes a start runs. Run from source, the server runs the CLI's source through tsx.
 */
declare const GUARDIAN_CLI_BUILD: string | undefined;
const GUARDIAN_CLI =
  typeof GUARDIAN_CLI_BUILD === 'string'
    ? GUARDIAN_CLI_BUILD
    : path.join(REPO_ROOT, 'packages/guardian-net/src/cli.ts');

/**
 * How each guardian decides, given the app's own origin: `--policy vault`, its own validation of a
 * vault request against the chain it reads from the app's esplora routes and the devnet's market
 * (devnet/market.ts), pinned to the devnet, so it reads the rune id and the oracle's key
 * from the app (and logs that it does). On the devnet the app is the network, so this is the one
 * chain view there is; off it, a guardian refuses to start without its own pins (pinned-facts.ts).
 */
export const guardianPolicyFlags = (app: string, feeds: readonly PriceFeed[] = []): string[] => [
  '--policy',
  'vault',
  '--network',
  'devnet',
  '--chain',
  `${app}/esplora`,
  '--app',
  app,
  '--feeds',
  // PRICE_SOURCE=feeds: the embedded guardians read PRICE_FEEDS, each its own signed price.
  // Otherwise the devnet's market (GET /api/devnet/market, not the app's price, which is their
  // quorum). A price set by hand does not wait for the tick: the app asks each guardian to read it
  // at once (a signed `price/fresh` message). The tick keeps each guardian's price fresh.
  feeds.length > 0 ? feeds.map((f) => `${f.kind}@${f.baseUrl}`).join(',') : `devnet@${app}`,
  '--price-tick',
  '5000',
];

/** The first start makes the key among n processes; generous, for a loaded machine. */
const DKG_TIMEOUT_MS = 120_000;
/** From `guardian local`'s start until t guardians answer `/v1/health` as ready. */
const READY_TIMEOUT_MS = 60_000;
/** `guardian local` gets this long to stop its guardians after SIGTERM before it is killed. */
const STOP_GRACE_MS = 5_000;
/** One /v1/health, its TLS handshake included, on a loaded machine. */
const HEALTH_TIMEOUT_MS = 3_000;

export const setFileOf = (config: ServerConfig) =>
  path.join(config.guardianNetwork.dir, 'guardian-set.json');

/** The published set in GUARDIAN_DIR, verified; null before the first start made it. */
export function readLocalGuardianSet(config: ServerConfig): GuardianSet | null {
  const file = setFileOf(config);
  if (!existsSync(file)) return null;
  try {
    return verifySet(JSON.parse(readFileSync(file, 'utf8')));
  } catch (err) {
    throw new ConfigError([`${file} is not a valid guardian set: ${(err as Error).message}`]);
  }
}

/**
 * A network's size and threshold are fixed when its key is made, and vaults commit to that key:
 * GUARDIAN_N or GUARDIAN_T that differ from the existing set stop the start with what to do.
 */
export function checkLocalGuardianSet(config: ServerConfig): GuardianSet | null {
  const set = readLocalGuardianSet(config);
  const { n, t, dir } = config.guardianNetwork;
  if (set && (set.n !== n || set.t !== t))
    throw new ConfigError([
      `The guardian network in ${dir} is ${set.t}-of-${set.n}, but GUARDIAN_N=${n} and ` +
        `GUARDIAN_T=${t} ask for ${t}-of-${n}. A network's size and threshold are fixed when its ` +
        `key is made, and vaults commit to that key. Either keep it (GUARDIAN_N=${set.n} ` +
        `GUARDIAN_T=${set.t}), or start over: stop the server and remove ${dir} (on the devnet, ` +
        `remove the whole DATA_DIR: vaults made under the old key could not be co-signed again).`,
    ]);
  return set;
}

function runCli(args: string[]): ChildProcess {
  // stdin is a pipe held by this server: the child leaves when it is gone (--exit-with-parent).
  const loader = GUARDIAN_CLI.endsWith('.ts') ? ['--import', 'tsx'] : [];
  return spawn(process.execPath, [...loader, GUARDIAN_CLI, ...args, '--exit-with-parent'], {
    cwd: REPO_ROOT,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
}

/** Each line a guardian process writes goes to the server's log; keeps the last lines of stderr. */
function forwardOutput(child: ChildProcess, log: Logger): () => string {
  const errors: string[] = [];
  createInterface({ input: child.stdout! }).on('line', (line) => {
    let event: Record<string, unknown>;
    try {
      event = JSON.parse(line) as Record<string, unknown>;
    } catch {
      event = { line };
    }
    // A guardian `guardian local` no longer restarts: its one line says which, why and what to do.
    if (event.event === 'guardian-stopped' && typeof event.message === 'string')
      return log.error({ guardianNetwork: event }, event.message);
    const level = typeof event.event === 'string' && QUIET.has(event.event) ? 'debug' : 'info';
    log[level]({ guardianNetwork: event }, 'guardian network');
  });
  createInterface({ input: child.stderr! }).on('line', (line) => {
    errors.push(line);
    if (errors.length > 20) errors.shift();
    log.warn({ guardianNetwork: { stderr: line } }, 'guardian network');
  });
  return () => errors.join('\n');
}

/** Events a running guardian logs for every request or price round: debug, not info. */
const QUIET = new Set(['price', 'price-stale', 'decision', 'commit', 'share', 'message-refused']);

function exitOf(child: ChildProcess): Promise<{ code: number | null; signal: string | null }> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null)
      resolve({ code: child.exitCode, signal: child.signalCode });
    else child.once('exit', (code, signal) => resolve({ code, signal }));
  });
}

/**
 * The first start: `guardian dkg` makes the key among n guardian processes on free loopback ports
 * (GUARDIAN_BASE_PORT=0) or base..base+n-1, and writes the signed set. Done before the app is
 * built, so everything that reads the set at start (the signer) finds it. Nothing when it exists.
 */
export async function createLocalGuardianNetwork(
  config: ServerConfig,
  { log, timeoutMs = DKG_TIMEOUT_MS }: { log: Logger; timeoutMs?: number },
): Promise<GuardianSet> {
  const existing = checkLocalGuardianSet(config);
  if (existing) return existing;
  const { dir, n, t, basePort } = config.guardianNetwork;
  log.info({ dir, n, t }, `making the guardian network's key (${t}-of-${n}, FROST DKG)`);
  const child = runCli([
    'dkg',
    '--dir',
    dir,
    '--n',
    `${n}`,
    '--t',
    `${t}`,
    '--base-port',
    `${basePort}`,
  ]);
  const stderr = forwardOutput(child, log);
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>(
    (resolve) => (timer = setTimeout(() => resolve('late'), timeoutMs)),
  );
  const result = await Promise.race([exitOf(child), late]);
  clearTimeout(timer);
  if (result === 'late') {
    child.kill('SIGKILL'); // its guardians see their stdin close and leave
    throw new Error(
      `The guardian network's key generation (guardian dkg) did not finish in ${timeoutMs / 1000} s` +
        ` (start again; if it fails again, remove ${dir} first). ${stderr()}`,
    );
  }
  const set = readLocalGuardianSet(config);
  if (result.code !== 0 || !set)
    throw new Error(
      `The guardian network's key generation (guardian dkg) failed (exit ${result.code ?? result.signal}): ` +
        `${stderr() || 'no message'}. Start again; if it fails again, remove ${dir} first.`,
    );
  log.info({ groupKey: set.groupKey, t: set.t, n: set.n }, 'guardian network key made');
  return set;
}

interface Health {
  state?: unknown;
  groupKey?: unknown;
}

/**
 * How many members answer `/v1/health` as ready for this set, and each one's state: the first t
 * ready plus a short grace (fan-out.ts), so a frozen member costs the grace, not the time-out.
 */
export async function readyMembers(set: GuardianSet): Promise<{ ready: number; states: string[] }> {
  const answers = await fanOut(
    set.members,
    async (m, signal) => {
      const res = await readPublic(m, '/v1/health', {
        timeoutMs: HEALTH_TIMEOUT_MS,
        maxBytes: HEALTH_MAX_BYTES,
        signal,
      });
      const body = (res.body ?? {}) as Health;
      if (res.ok && body.state === 'ready' && body.groupKey === set.groupKey) return true;
      throw new Error(`not ready (${String(body.state)})`);
    },
    { need: set.t, timeoutMs: HEALTH_TIMEOUT_MS },
  );
  const states = answers.map((a, i) => `${set.members[i]!.name}: ${a.ok ? 'ready' : a.reason}`);
  return { ready: answers.filter((a) => a.ok).length, states };
}

export interface LocalGuardianNetwork {
  /** Resolves once at least t guardians are ready; rejects with a clear error at the time-out. */
  ready: Promise<void>;
  /** While the network starts, the refusal a vault request gets; null once it is ready. */
  refusal(): string | null;
  /** SIGTERM to `guardian local` (which stops its guardians), SIGKILL after a grace period. */
  stop(): Promise<void>;
}

/** The address the guardians reach the app at: loopback unless the server listens on one host. */
export function appOrigin(host: string, port: number): string {
  const any = ['0.0.0.0', '::', '127.0.0.1', 'localhost', '::1', ''].includes(host);
  const name = any ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host;
  return `http://${name}:${port}`;
}

/**
 * `guardian local`'s command line: the set's directory, n and t, then what `local` passes on to
 * every guardian it runs: the policy flags, pointed at this server's `port` (with PRICE_FEEDS as
 * their feeds and PRICE_MAX_SPREAD their spread when PRICE_SOURCE is feeds), and GUARDIAN_MAX_FEE_RATE
 * as `--max-fee-rate` when set.
 */
export function localGuardianArgs(
  config: Pick<ServerConfig, 'guardianNetwork' | 'host'> &
    Partial<Pick<ServerConfig, 'priceSource' | 'priceFeeds' | 'priceMaxSpreadBasisPoints'>>,
  port: number,
): string[] {
  const { dir, n, t, maxFeeRate } = config.guardianNetwork;
  const feeds = config.priceSource === 'feeds' ? (config.priceFeeds ?? []) : [];
  const spread = config.priceMaxSpreadBasisPoints;
  return [
    ...['local', '--dir', dir, '--n', `${n}`, '--t', `${t}`],
    ...guardianPolicyFlags(appOrigin(config.host, port), feeds),
    // With PRICE_FEEDS, PRICE_MAX_SPREAD is the guardians' spread rule, as it is the app's off it.
    ...(feeds.length > 0 && spread !== undefined ? ['--max-spread', `${spread}`] : []),
    ...(maxFeeRate !== undefined ? ['--max-fee-rate', `${maxFeeRate}`] : []),
  ];
}

/**
 * Runs `guardian local` for the set in GUARDIAN_DIR (made by createLocalGuardianNetwork) with the
 * policy flags above, pointed at this server's `port`, and watches until t guardians are ready.
 */
export function startLocalGuardianNetwork(
  config: ServerConfig,
  opts: { port: number; log: Logger; readyTimeoutMs?: number },
): LocalGuardianNetwork {
  const { log, port } = opts;
  const set = checkLocalGuardianSet(config);
  if (!set) throw new Error(`No guardian set in ${config.guardianNetwork.dir}: make it first`);
  const { t, n } = config.guardianNetwork;
  const args = localGuardianArgs(config, port);
  let stopping = false;
  let isReady = false;
  let status = `0 of ${t} needed guardians ready`;
  // `guardian local` restarts a guardian that dies; this restarts `guardian local` itself when it
  // dies once the network was ready (killed by mistake, crashed). Exit 0 is a stop (SIGINT of a
  // terminal reaches the whole process group): not restarted.
  const launch = () => {
    const child = runCli(args);
    const stderr = forwardOutput(child, log);
    const exit = exitOf(child);
    void exit.then(({ code, signal }) => {
      if (stopping) return;
      if (!isReady || code === 0) {
        // Exit 0 with the server still up: SIGINT reached the whole process group (Ctrl-C).
        log[code === 0 ? 'info' : 'error']({ code, signal }, 'guardian local stopped');
        return;
      }
      log.error({ code, signal }, 'guardian local died; starting it again in 2 s');
      setTimeout(() => {
        if (!stopping) current = launch();
      }, 2_000);
    });
    return { child, exit, stderr };
  };
  let current = launch();
  const { exit, stderr } = current;

  const ready = (async () => {
    const deadline = Date.now() + (opts.readyTimeoutMs ?? READY_TIMEOUT_MS);
    for (;;) {
      const gone = await Promise.race([exit, new Promise((r) => setTimeout(r, 250, null))]);
      if (gone)
        throw new Error(
          `The guardian network stopped before it was ready (guardian local exited ${JSON.stringify(gone)}): ${stderr() || 'no message'}`,
        );
      const { ready: count, states } = await readyMembers(set);
      status = `${count} of ${t} needed guardians ready`;
      if (count >= t) {
        isReady = true;
        log.info({ t, n, states }, `guardian network ready (${t}-of-${n})`);
        return;
      }
      if (Date.now() > deadline)
        throw new Error(
          `The guardian network was not ready in ${(opts.readyTimeoutMs ?? READY_TIMEOUT_MS) / 1000} s: ` +
            `${status} (${states.join('; ')}). Its processes' lines are in this log ("guardian network").`,
        );
    }
  })();

  return {
    ready,
    refusal: () =>
      isReady ? null : `The guardian network is starting (${status}); try again in a few seconds.`,
    async stop() {
      stopping = true;
      const { child, exit } = current;
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<'late'>((r) => (timer = setTimeout(() => r('late'), STOP_GRACE_MS)));
      if ((await Promise.race([exit, late])) === 'late') child.kill('SIGKILL');
      clearTimeout(timer);
      await exit;
    },
  };
}

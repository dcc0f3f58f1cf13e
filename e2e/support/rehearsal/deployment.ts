// The processes of the signet rehearsal (e2e/tests/signet-rehearsal.spec.ts): the network process,
// the operator's commands and the product, each started the way the README's "Operate on signet"
// says, from an environment file sourced by the shell (`set -a; . ./signet.env; set +a`).
import { spawn, type ChildProcess } from 'node:child_process';
import { appendFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { resolve } from 'node:path';

const repoRoot = resolve(import.meta.dirname, '../../..');

export interface NetworkProcess {
  /** the devnet itself: its faucet and mine controls, and the esplora the journey reads back */
  network: string;
  /** the same services through the proxy: what the product is configured with */
  proxy: string;
  control: string;
  /** kind@baseUrl of the four exchanges, for PRICE_FEEDS */
  feeds: string[];
  output(): string;
  stop(): Promise<void>;
}

/** A child with what it printed, stopped by its own id (and its process group: npm's children). */
function started(child: ChildProcess) {
  let log = '';
  child.stdout?.on('data', (chunk) => (log += String(chunk)));
  child.stderr?.on('data', (chunk) => (log += String(chunk)));
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  return {
    output: () => log,
    exited,
    stop: async () => {
      const signal = (name: NodeJS.Signals) => {
        try {
          process.kill(-child.pid!, name);
        } catch {
          child.kill(name);
        }
      };
      if (child.exitCode === null && child.signalCode === null) {
        signal('SIGTERM');
        // A process that does not stop on its own within 10 s is killed, its group with it.
        const timer = setTimeout(() => signal('SIGKILL'), 10_000);
        await exited;
        clearTimeout(timer);
      }
    },
  };
}

async function until<T>(what: string, output: () => string, find: () => T | undefined) {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const found = find();
    if (found !== undefined) return found;
    if (Date.now() > deadline) throw new Error(`${what} never came:\n${output()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** The network, its UNIT (1:1) premined to `unitTo` (the operator's treasury, as an issuer pays it). */
export async function startNetwork(dataDir: string, unitTo: string): Promise<NetworkProcess> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', resolve(import.meta.dirname, 'network-process.ts'), dataDir, unitTo],
    // Its stdin stays open while this process lives: the network stops when it closes.
    { cwd: repoRoot, stdio: ['pipe', 'pipe', 'pipe'], detached: true },
  );
  const run = started(child);
  const line = await until('the network', run.output, () =>
    run
      .output()
      .split('\n')
      .find((l) => l.startsWith('{"network"')),
  );
  return { ...(JSON.parse(line) as Omit<NetworkProcess, 'output' | 'stop'>), ...run };
}

/** The operator's environment file, as README step 2 writes it; `add` appends a line later. */
export function envFile(file: string, vars: Record<string, string>) {
  writeFileSync(
    file,
    Object.entries(vars)
      .map(([name, value]) => `${name}=${value}\n`)
      .join(''),
    { mode: 0o600 },
  );
  return {
    file,
    add: (name: string, value: string) => appendFileSync(file, `${name}=${value}\n`),
  };
}

/** A shell that sources the environment file, then runs `command` as the README writes it. */
function sourced(file: string, command: string, extra: Record<string, string> = {}) {
  return spawn('bash', ['-c', `set -a; . "$UNIT_ENV_FILE"; set +a; exec ${command}`], {
    cwd: repoRoot,
    // Nothing of the test's own environment: only what a fresh shell has, and the file.
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      UNIT_ENV_FILE: file,
      ...extra,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
}

export interface OperatorRun {
  /** what it printed so far, line by line */
  lines(): string[];
  /** resolves with every line once it exits 0; rejects with its output otherwise */
  done: Promise<string[]>;
  /** the first line matching `pattern`, once printed */
  said(pattern: RegExp): Promise<string>;
}

/** `npm run operator -- <args>` in a shell that sourced the file. */
export function operator(file: string, args: string[], pollMs = 100): OperatorRun {
  const child = sourced(file, `npm run --silent operator -- ${args.join(' ')}`, {
    // README: interrupted, the etching goes on; here it polls the network often, it is local.
    OPERATOR_POLL_MS: String(pollMs),
  });
  const run = started(child);
  const lines = () => run.output().split('\n').filter(Boolean);
  const done = run.exited.then(() => {
    if (child.exitCode !== 0)
      throw new Error(`operator ${args.join(' ')} exited ${child.exitCode}:\n${run.output()}`);
    return lines();
  });
  return {
    lines,
    done,
    said: (pattern) =>
      until(`"${String(pattern)}" from operator ${args[0]}`, run.output, () =>
        lines().find((l) => pattern.test(l)),
      ),
  };
}

export function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const probe = createServer();
    probe.once('error', fail);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() => done(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

export interface ProductProcess {
  output(): string;
  stop(): Promise<void>;
}

/**
 * The product as `npm start` serves it (its server half: the web app is built once before the
 * browser journeys), from the sourced file; resolves once /api/health answers at `url`.
 */
export async function startProduct(file: string, url: string): Promise<ProductProcess> {
  const child = sourced(file, 'npm run --silent start -w @unit/server');
  const run = started(child);
  await until('the product', run.output, () => {
    if (child.exitCode !== null) throw new Error(`the product exited:\n${run.output()}`);
    return run.output().includes('UNIT vault app listening') ? true : undefined;
  });
  const health = await fetch(`${url}/api/health`);
  if (!health.ok) throw new Error(`${url}/api/health: ${health.status}`);
  return run;
}

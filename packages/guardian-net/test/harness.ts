// Real guardian processes on loopback for the network tests: spawn, wait until healthy, kill -9,
// and keep every line they log so a test can check no secret ever appears there.
import { afterAll, beforeAll, expect } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { verifySet, type GuardianSet } from '../src/guardian-set';
import { getJson, postJson } from '../src/http-post';
import type { Identity } from '../src/identity';
import { linkCredentials } from '../src/tls-link';
import { MESSAGE_PATH } from '../src/transport';
import { nodeArgs } from './bins';

export const PACKAGE_DIR = join(dirname(fileURLToPath(import.meta.url)), '..');
export const CLI = join(PACKAGE_DIR, 'src', 'cli.ts');
export const EVIL = join(PACKAGE_DIR, 'test', 'fixtures', 'evil-guardian.ts');

/** Every line any spawned process wrote, for the no-secret-in-logs checks. */
export const allOutput: string[] = [];

export interface Proc {
  child: ChildProcess;
  exited: Promise<number | null>;
  output: () => string;
}

export interface RunOptions {
  /** a command that runs node for it (`ip netns exec <name>`: the process in that namespace) */
  wrap?: string[];
  /** its whole environment (default: this process's) */
  env?: NodeJS.ProcessEnv;
}

export function run(script: string, args: string[], options: RunOptions = {}): Proc {
  const argv = [process.execPath, ...nodeArgs(script), ...args];
  const [command, ...rest] = [...(options.wrap ?? []), ...argv];
  const child = spawn(command!, rest, {
    cwd: PACKAGE_DIR,
    stdio: ['ignore', 'pipe', 'pipe'],
    ...(options.env ? { env: options.env } : {}),
  });
  let out = '';
  const collect = (b: Buffer) => {
    out += b.toString();
    allOutput.push(b.toString());
  };
  child.stdout!.on('data', collect);
  child.stderr!.on('data', collect);
  // Settles once its last lines are read too (a failure's message is often its last line), or
  // half a second after it exits when a process it left behind holds its pipes open.
  const exited = new Promise<number | null>((resolve) =>
    child.once('exit', (code) => {
      const timer = setTimeout(() => resolve(code), 500);
      child.once('close', () => (clearTimeout(timer), resolve(code)));
    }),
  );
  return { child, exited, output: () => out };
}

async function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = createServer();
    s.once('error', () => resolve(false));
    s.listen(port, '127.0.0.1', () => s.close(() => resolve(true)));
  });
}

/** `n` consecutive free loopback ports. */
export async function freePorts(n: number): Promise<number> {
  for (;;) {
    // Below Linux's ephemeral range (32768 and up): a port there may be taken by any outgoing
    // connection between this check and the guardian's listen (EADDRINUSE).
    const base = 20_000 + Math.floor(Math.random() * 12_000);
    let ok = true;
    for (let i = 0; i < n && ok; i++) ok = await portFree(base + i);
    if (ok) return base;
  }
}

/**
 * A guardian as the tests reach it: a member of a set (its URL and the identity key its TLS
 * certificate must be bound to), or a bare URL (over https, any certificate bound to an identity
 * key, for a guardian whose key the test does not hold yet).
 */
export type GuardianAt = string | { url: string; identityKey: string };

const linkOf = (at: GuardianAt) =>
  typeof at === 'string' ? { url: at, expect: undefined } : { url: at.url, expect: at.identityKey };

const parsed = (text: string): unknown => {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
};

/** GET `path` of a guardian over its real link (TLS pinned as `at` says, or plain HTTP). */
export async function readGuardian(
  at: GuardianAt,
  path: string,
  timeoutMs = 5_000,
): Promise<{ status: number; body: unknown }> {
  const { url, expect } = linkOf(at);
  const { status, text } = await getJson(url + path, timeoutMs, { expect });
  return { status, body: parsed(text) };
}

/**
 * POSTs `raw` to a guardian's message endpoint as `sender` would: over TLS with `sender`'s own
 * certificate (a guardian takes a message only from the party its connection is bound to).
 */
export async function postRaw(
  at: GuardianAt,
  raw: string,
  sender: Identity,
  timeoutMs = 5_000,
): Promise<{ status: number; body: unknown }> {
  const { url, expect } = linkOf(at);
  const tls = url.startsWith('https:') ? { credentials: await linkCredentials(sender), expect } : undefined; // prettier-ignore
  const { status, text } = await postJson(url + MESSAGE_PATH, raw, timeoutMs, tls);
  return { status, body: parsed(text) };
}

export async function waitHealthy(
  at: GuardianAt,
  timeoutMs = 30_000,
): Promise<Record<string, unknown>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      // A TLS handshake on a loaded machine can take more than a second: a read gets five.
      const res = await readGuardian(at, '/v1/health', Math.max(1_000, Math.min(5_000, deadline - Date.now()))); // prettier-ignore
      if (res.status === 200) return res.body as Record<string, unknown>;
    } catch {
      // not up yet
    }
    if (Date.now() > deadline) throw new Error(`${linkOf(at).url} did not come up`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

export async function kill9(p: Proc): Promise<void> {
  p.child.kill('SIGKILL');
  await p.exited;
}

/**
 * For a file whose subject is not the links (membership changes, one-round signing): its guardian
 * processes speak plain HTTP on loopback, as the development flag allows, set from before the
 * file's first hook to after its last, so no other file in the same worker inherits it. The
 * links themselves are tested over pinned TLS (network, tls-links, link-capture).
 */
export function plainLinksInThisFile(): void {
  const flag = 'UNIT_GUARDIAN_INSECURE_PLAIN_HTTP';
  let before: string | undefined;
  beforeAll(() => {
    before = process.env[flag];
    process.env[flag] = '1';
  });
  afterAll(() => {
    if (before === undefined) delete process.env[flag];
    else process.env[flag] = before;
  });
}

/**
 * The CLI's DKG of a 2-of-3 set into `dir`, its guardians from `basePort` (it starts three guardian
 * processes, runs the rounds and stops them); the set it wrote, verified.
 */
export async function cliDkg(dir: string, basePort: number): Promise<GuardianSet> {
  const args = ['--dir', dir, '--n', '3', '--t', '2', '--base-port', String(basePort)];
  const dkg = run(CLI, ['dkg', ...args]);
  expect(await dkg.exited, dkg.output()).toBe(0);
  return verifySet(JSON.parse(readFileSync(join(dir, 'guardian-set.json'), 'utf8')));
}

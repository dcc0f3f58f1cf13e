// `npm start` on the devnet runs a t-of-n guardian network, every link TLS (https://127.0.0.1 URLs,
// no plain-HTTP flag): the real server entry (src/main.ts, as
// `npm start` runs it, bundled: test/bins.ts; GUARDIAN_NETWORK unset) in a child process, its guardians found in /proc by
// their command lines. Three guardians appear, each named by `start --id i`, all ready; one killed
// with SIGKILL is back within seconds, and so are all of them when `guardian local` itself is
// killed (on the same ports, with the same set: what a later start does); GUARDIAN_N=5 GUARDIAN_T=3 gives five; n and t that differ
// from an existing set stop the start with what to do; and whether the server is stopped with
// SIGTERM or killed with SIGKILL, no guardian process is left.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readPublic } from '@unit/guardian-net';
import { nodeArgs } from '../../../../packages/guardian-net/test/bins';

const SERVER_DIR = path.resolve(import.meta.dirname, '../..');
/** The guardian CLI as the server's bundle runs it: the CLI's own bundle (bins.ts). */
const GUARDIAN_CLI = path.resolve(SERVER_DIR, '../../packages/guardian-net/src/cli.ts');
const CLI_RUN = nodeArgs(GUARDIAN_CLI).at(-1)!;
const dirs: string[] = [];
const servers: ChildProcess[] = [];

interface Server {
  child: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
}

/** main.ts with exactly this environment (GUARDIAN_NETWORK unset unless given). */
function startServer(env: Record<string, string>): Server {
  const child = spawn(process.execPath, nodeArgs(path.join(SERVER_DIR, 'src/main.ts')), {
    cwd: SERVER_DIR,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      PORT: '0',
      HOST: '127.0.0.1',
      BLOCK_INTERVAL: '0',
      PRICE_TICK: '3600000',
      LOG_LEVEL: 'info',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  servers.push(child);
  let out = '';
  child.stdout!.on('data', (b: Buffer) => (out += b.toString()));
  child.stderr!.on('data', (b: Buffer) => (out += b.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (c) => resolve(c)));
  return { child, output: () => out, exited };
}

async function waitFor<T>(
  what: string,
  probe: () => T | false | undefined | Promise<T | false | undefined>,
  timeoutMs: number,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

async function untilReady(server: Server): Promise<void> {
  await waitFor(
    'the guardian network to be ready',
    () => {
      if (server.child.exitCode !== null)
        throw new Error(`server exited ${server.child.exitCode}:\n${server.output()}`);
      return server.output().includes('guardian network ready');
    },
    90_000,
  );
}

interface GuardianProcess {
  pid: number;
  id: number;
}

/**
 * Every guardian process (`cli.ts start --id i --dir <dir>/guardian-i ...`, or the CLI's bundle in
 * place of cli.ts) of this network, from /proc.
 */
function guardianProcesses(networkDir: string): GuardianProcess[] {
  const found: GuardianProcess[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let argv: string[];
    try {
      argv = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0');
    } catch {
      continue; // gone meanwhile
    }
    const cli = argv.findIndex((a) => a.endsWith('guardian-net/src/cli.ts') || a === CLI_RUN);
    const dir = argv[argv.indexOf('--dir') + 1] ?? '';
    if (cli < 0 || argv[cli + 1] !== 'start' || !dir.startsWith(networkDir + path.sep)) continue;
    found.push({ pid: Number(entry), id: Number(argv[argv.indexOf('--id') + 1]) });
  }
  return found.sort((a, b) => a.id - b.id);
}

/** The `guardian local` process that runs this network's guardians. */
function localProcess(networkDir: string): number | undefined {
  const pid = readdirSync('/proc')
    .filter((e) => /^\d+$/.test(e))
    .find((e) => {
      try {
        const argv = readFileSync(`/proc/${e}/cmdline`, 'utf8').split('\0');
        return argv.includes('local') && argv[argv.indexOf('--dir') + 1] === networkDir;
      } catch {
        return false;
      }
    });
  return pid === undefined ? undefined : Number(pid);
}

/** Any process of this network: the guardians and `guardian local`/`dkg` itself. */
function networkProcesses(networkDir: string): number[] {
  return readdirSync('/proc')
    .filter((e) => /^\d+$/.test(e))
    .filter((e) => {
      try {
        return readFileSync(`/proc/${e}/cmdline`, 'utf8').includes(networkDir);
      } catch {
        return false;
      }
    })
    .map(Number);
}

interface SetFile {
  t: number;
  n: number;
  groupKey: string;
  members: Array<{ id: number; url: string; identityKey: string }>;
}

const readSet = (networkDir: string) =>
  JSON.parse(readFileSync(path.join(networkDir, 'guardian-set.json'), 'utf8')) as SetFile;

async function readyIds(set: SetFile): Promise<number[]> {
  const answers = await Promise.all(
    set.members.map(async (m) => {
      try {
        // Over TLS, pinned to the member's identity key, as the app reads it.
        const res = await readPublic(m, '/v1/health', { timeoutMs: 5_000, maxBytes: 16_384 });
        const h = res.body as { id: number; state: string; groupKey: string };
        return h.state === 'ready' && h.groupKey === set.groupKey && h.id === m.id ? m.id : 0;
      } catch {
        return 0;
      }
    }),
  );
  return answers.filter((id) => id > 0);
}

function tempDataDir(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'unit-localnet-'));
  dirs.push(dir);
  return dir;
}

afterAll(() => {
  for (const s of servers) if (s.exitCode === null && s.signalCode === null) s.kill('SIGKILL');
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe('npm start on the devnet runs the guardian network', () => {
  it('runs three guardians named on their command lines, restarts one killed and guardian local killed, leaves none after SIGTERM, and refuses another n and t', async () => {
    const dataDir = tempDataDir();
    const networkDir = path.join(dataDir, 'guardians');
    const first = startServer({ DATA_DIR: dataDir });
    await untilReady(first);
    const set = readSet(networkDir);
    expect([set.t, set.n]).toEqual([2, 3]);
    // Base port 0 picked free ports, written in the set; every link is TLS, with no flag.
    expect(set.members.every((m) => Number(new URL(m.url).port) > 0)).toBe(true);
    expect(set.members.every((m) => m.url.startsWith('https://127.0.0.1:'))).toBe(true);
    // The key was made through each member's operator's approval of the roster, which the one
    // operator of the embedded network recorded in each guardian's own directory.
    const roster = JSON.parse(readFileSync(path.join(networkDir, 'roster.json'), 'utf8')) as unknown; // prettier-ignore
    for (const m of set.members) {
      const folder = path.join(networkDir, `guardian-${m.id}`, 'approvals');
      const files = readdirSync(folder);
      expect(files).toEqual([expect.stringMatching(/^dkg-v0-[0-9a-f]{64}\.json$/)]);
      const record = JSON.parse(readFileSync(path.join(folder, files[0]!), 'utf8')) as Record<string, unknown>; // prettier-ignore
      expect(record).toMatchObject({ change: 'dkg', guardian: { id: m.id, identityKey: m.identityKey }, roster }); // prettier-ignore
      expect(files[0]).toBe(`dkg-v0-${String(record.rosterDigest)}.json`);
    }
    const three = await waitFor(
      'three guardians',
      () => {
        const found = guardianProcesses(networkDir);
        return found.length === 3 && found;
      },
      20_000,
    );
    expect(three.map((g) => g.id)).toEqual([1, 2, 3]);
    for (const { pid } of three)
      expect(readFileSync(`/proc/${pid}/cmdline`, 'utf8')).not.toContain('--insecure-plain-http');
    await waitFor('all three ready', async () => (await readyIds(set)).length === 3, 20_000);
    // A plain HTTP request to a guardian gets no answer.
    const plainUrl = set.members[0]!.url.replace('https:', 'http:');
    const plain = await fetch(`${plainUrl}/v1/health`, { signal: AbortSignal.timeout(2_000) }).then(
      (r) => `answered ${r.status}`,
      (e: Error) => e.name,
    );
    expect(plain).not.toMatch(/^answered/);

    const victim = three.find((g) => g.id === 2)!;
    process.kill(victim.pid, 'SIGKILL');
    const killedAt = Date.now();
    const back = await waitFor(
      'guardian 2 back',
      () => {
        const g = guardianProcesses(networkDir).find((p) => p.id === 2 && p.pid !== victim.pid);
        return g;
      },
      15_000,
    );
    expect(back.pid).not.toBe(victim.pid);
    await waitFor('guardian 2 ready again', async () => (await readyIds(set)).includes(2), 20_000);
    expect(Date.now() - killedAt).toBeLessThan(20_000);

    // `guardian local` itself killed: its guardians leave with it, and the server runs it again.
    const local = localProcess(networkDir)!;
    const running = guardianProcesses(networkDir).map((g) => g.pid);
    process.kill(local, 'SIGKILL');
    await waitFor(
      'a new guardian local and three new guardians',
      () => {
        const now = guardianProcesses(networkDir);
        const again = localProcess(networkDir);
        return (
          again !== undefined &&
          again !== local &&
          now.length === 3 &&
          now.every((g) => !running.includes(g.pid))
        );
      },
      20_000,
    );
    await waitFor('all three ready again', async () => (await readyIds(set)).length === 3, 20_000);

    // The relaunched `guardian local` found the set and kept it: same key, same ports.
    expect(readSet(networkDir)).toEqual(set);

    first.child.kill('SIGTERM');
    expect(await first.exited).toBe(0);
    await waitFor(
      'no guardian process after SIGTERM',
      () => networkProcesses(networkDir).length === 0,
      10_000,
    );

    // Another n and t against the existing set: a clear message, no start.
    const mismatch = startServer({ DATA_DIR: dataDir, GUARDIAN_N: '5', GUARDIAN_T: '3' });
    expect(await mismatch.exited).toBe(2);
    expect(mismatch.output()).toContain(`The guardian network in ${networkDir} is 2-of-3`);
    expect(mismatch.output()).toContain(`remove ${networkDir}`);
    expect(networkProcesses(networkDir)).toEqual([]);
  }, 240_000);

  it('runs five guardians, 3 of which must approve, with GUARDIAN_N=5 GUARDIAN_T=3, each with GUARDIAN_MAX_FEE_RATE as --max-fee-rate, and leaves none after SIGKILL of the server', async () => {
    const dataDir = tempDataDir();
    const networkDir = path.join(dataDir, 'guardians');
    const server = startServer({
      ...{ DATA_DIR: dataDir, GUARDIAN_N: '5', GUARDIAN_T: '3' },
      GUARDIAN_MAX_FEE_RATE: '250',
    });
    await untilReady(server);
    const set = readSet(networkDir);
    expect([set.t, set.n]).toEqual([3, 5]);
    const five = await waitFor(
      'five guardians',
      () => {
        const found = guardianProcesses(networkDir);
        return found.length === 5 && found;
      },
      20_000,
    );
    expect(five.map((g) => g.id)).toEqual([1, 2, 3, 4, 5]);
    // GUARDIAN_MAX_FEE_RATE reaches every guardian's command line as its treasury fee ceiling.
    for (const { pid } of five) {
      const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
      expect(argv[argv.indexOf('--max-fee-rate') + 1]).toBe('250');
    }
    await waitFor('at least three ready', async () => (await readyIds(set)).length >= 3, 20_000);
    server.child.kill('SIGKILL');
    await server.exited;
    await waitFor(
      'no guardian process after SIGKILL of the server',
      () => networkProcesses(networkDir).length === 0,
      10_000,
    );
  }, 180_000);
});

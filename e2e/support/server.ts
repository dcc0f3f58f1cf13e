// Starts the real server (devnet, fresh SQLite database, blocks only on demand) on a free loopback
// port, as `npm start` runs it, and stops it after. Its code runs from the bundle the global setup
// makes of apps/server/src/main.ts (packages/guardian-net/test/bins.ts): the same sources, started
// without tsx's loader, and its guardian network from the CLI's bundle the same way.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { nodeArgs } from '../../packages/guardian-net/test/bins';

const repoRoot = resolve(import.meta.dirname, '../..');

export interface RunningServer {
  url: string;
  /** the server's process id (its guardian network, when it runs one, is in its process tree) */
  pid: number;
  /** what the server printed so far (warnings and errors: LOG_LEVEL=warn) */
  output(): string;
  stop(): Promise<void>;
}

function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const probe = createServer();
    probe.once('error', fail);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() => done(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

async function waitForHealth(
  url: string,
  child: ChildProcess,
  output: () => string,
): Promise<void> {
  // A server with GUARDIAN_NETWORK=local makes its key by a DKG among three processes first.
  const deadline = Date.now() + 120_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`server exited early:\n${output()}`);
    try {
      const res = await fetch(`${url}/api/health`);
      if (res.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`server did not become healthy:\n${output()}`);
}

export async function startServer(env: Record<string, string> = {}): Promise<RunningServer> {
  const port = await freePort();
  const dataDir = mkdtempSync(join(tmpdir(), 'unit-e2e-'));
  const url = `http://127.0.0.1:${port}`;
  let log = '';
  const child = spawn(process.execPath, nodeArgs(join(repoRoot, 'apps/server/src/main.ts')), {
    cwd: repoRoot,
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      NETWORK: 'devnet',
      DATA_DIR: dataDir,
      BLOCK_INTERVAL: '0',
      // The price moves only when a journey sets it (POST /api/devnet/price), so ratios are exact.
      PRICE_TICK: '3600000',
      LOG_LEVEL: 'warn',
      // Journeys sign alone unless asked: E2E_GUARDIAN_NETWORK=local runs them on the guardian network.
      GUARDIAN_NETWORK: process.env.E2E_GUARDIAN_NETWORK ?? 'off',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout?.on('data', (chunk) => (log += String(chunk)));
  child.stderr?.on('data', (chunk) => (log += String(chunk)));
  await waitForHealth(url, child, () => log);
  return {
    url,
    pid: child.pid!,
    output: () => log,
    async stop() {
      if (child.exitCode === null) {
        const exited = new Promise((r) => child.once('exit', r));
        child.kill('SIGTERM');
        await exited;
      }
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

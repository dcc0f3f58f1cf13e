// The operator's commands when the chain's services cannot be reached: the treasury address, known
// without the chain, comes first; the error names the service, its setting, its host, the cause
// (the system's error code, or the time-out) and what to do next. The real CLI, its real fetch:
// a port nothing listens on, a host name that cannot resolve, and a service that never answers.
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bytesToHex } from '@noble/hashes/utils.js';
import { runOperator } from '../../src/operator/cli';
import { signetEnvFor } from './network';

let dataDir: string;
let env: Record<string, string>;
let silent: http.Server;
let failing: http.Server;
let failingUrl: string;
let silentUrl: string;
let closedPort: number;

/** A loopback port that was free a moment ago and that nothing listens on now. */
async function closedLoopbackPort(): Promise<number> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

beforeAll(async () => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'unit-operator-down-'));
  closedPort = await closedLoopbackPort();
  env = {
    ...signetEnvFor(`http://127.0.0.1:${closedPort}`, {
      unitRuneId: '840000:1',
      guardianKey: bytesToHex(randomBytes(32)),
    }),
    DATA_DIR: dataDir,
  };
  // A service that accepts the connection and never answers.
  silent = http.createServer(() => undefined);
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  silentUrl = `http://127.0.0.1:${(silent.address() as AddressInfo).port}`;
  // A service that answers every call with its own failure.
  failing = http.createServer((_req, res) => res.writeHead(503).end('upstream down'));
  await new Promise<void>((resolve) => failing.listen(0, '127.0.0.1', resolve));
  failingUrl = `http://127.0.0.1:${(failing.address() as AddressInfo).port}`;
});

afterAll(async () => {
  silent.closeAllConnections();
  await new Promise((resolve) => silent.close(resolve));
  await new Promise((resolve) => failing.close(resolve));
  fs.rmSync(dataDir, { recursive: true, force: true });
});

/** Runs the command in this process; what it said before failing, and its error. */
async function operator(extra: Record<string, string>) {
  const lines: string[] = [];
  const error = await runOperator(
    ['treasury'],
    { ...env, ...extra },
    (l) => lines.push(l),
    50,
  ).then(
    () => null,
    (e: unknown) => e as Error,
  );
  return { lines, error };
}

describe('npm run operator -- treasury with the chain unreachable', () => {
  it('prints the treasury address first, then names the host, ECONNREFUSED and the setting to check', async () => {
    const { lines, error } = await operator({});
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^treasury address {2}tb1p[a-z0-9]{58}$/);
    expect(error).not.toBeNull();
    const host = `127.0.0.1:${closedPort}`;
    expect(error!.message).toMatch(
      /^esplora at 127\.0\.0\.1:\d+ \(ESPLORA_URL\) could not be reached for \/address\/tb1p[a-z0-9]{58}\/utxo: /,
    );
    expect(error!.message).toContain(
      `(ESPLORA_URL) could not be reached for /address/${lines[0]!.split('  ')[1]}/utxo: ECONNREFUSED (nothing listens on that port). Check ESPLORA_URL and that this machine reaches ${host}, then try again.`,
    );
    expect(error!.message.startsWith(`esplora at ${host} `)).toBe(true);
  });

  it('names a host that does not resolve by its system error', async () => {
    const { lines, error } = await operator({
      ESPLORA_URL: 'http://esplora.unit-test.invalid/api',
    });
    expect(lines[0]).toMatch(/^treasury address {2}tb1p/);
    // ENOTFOUND where a resolver answers; EAI_AGAIN where none can be asked (an offline sandbox).
    expect(error!.message).toMatch(
      /^esplora at esplora\.unit-test\.invalid \(ESPLORA_URL\) could not be reached for \/address\/tb1p[a-z0-9]+\/utxo: (ENOTFOUND \(the host name does not resolve\)|EAI_AGAIN \(the host name could not be resolved right now\))\. Check ESPLORA_URL/,
    );
  });

  it('says how long it waited for a service that never answers', async () => {
    const { lines, error } = await operator({
      ESPLORA_URL: `${silentUrl}/esplora`,
      CHAIN_TIMEOUT: '300',
    });
    expect(lines[0]).toMatch(/^treasury address {2}tb1p/);
    expect(error!.message).toMatch(
      new RegExp(
        `^esplora at 127\\.0\\.0\\.1:${new URL(silentUrl).port} \\(ESPLORA_URL\\) could not be reached for /address/tb1p[a-z0-9]+/utxo: timed out after \\d+ ms\\.`,
      ),
    );
  }, 30_000);

  it('names an HTTP 5xx as a failure on the service side, with what to do', async () => {
    const { lines, error } = await operator({ ESPLORA_URL: `${failingUrl}/api` });
    expect(lines[0]).toMatch(/^treasury address {2}tb1p/);
    expect(error!.message).toBe(
      `esplora at ${new URL(failingUrl).host} (ESPLORA_URL) answered /address/${lines[0]!.split('  ')[1]}/utxo with HTTP 503, a failure on its side. ` +
        'Try again in a minute; if it persists, check the service or point ESPLORA_URL at another instance.',
    );
  });
});

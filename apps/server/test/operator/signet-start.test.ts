// A real start of the server (`tsx src/main.ts`, as `npm start` runs it) with NETWORK=signet and
// its chain services on a devnet instance playing the network: the page's configuration answers
// the configured UNIT rune id, and a configuration with parts missing is one list, not a trace.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bytesToHex } from '@noble/hashes/utils.js';
import type { ConfigDto } from '@unit/protocol';
import { startTestApp, type RunningApp } from '../support';
import { signetEnvFor } from './network';

const SERVER_DIR = path.resolve(import.meta.dirname, '../..');
const MAIN = path.join(SERVER_DIR, 'src/main.ts');
const TSX = path.resolve(SERVER_DIR, '../../node_modules/.bin/tsx');

/** Runs main.ts with exactly `env` (plus PATH); resolves with its exit code and output. */
function runMain(
  env: Record<string, string>,
  until: (output: string) => boolean,
  timeoutMs = 60_000,
): Promise<{ code: number | null; output: string; stop(): Promise<void> }> {
  return new Promise((resolve, reject) => {
    const child = spawn(TSX, [MAIN], {
      cwd: SERVER_DIR,
      env: { PATH: process.env.PATH ?? '', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    const exited = new Promise<void>((done) => child.once('exit', () => done()));
    const stop = async () => {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
    };
    const timer = setTimeout(() => {
      void stop();
      reject(new Error(`main.ts did not get there in time:\n${output}`));
    }, timeoutMs);
    const check = () => {
      if (until(output)) {
        clearTimeout(timer);
        resolve({ code: child.exitCode, output, stop });
      }
    };
    child.stdout.on('data', (chunk: Buffer) => ((output += String(chunk)), check()));
    child.stderr.on('data', (chunk: Buffer) => ((output += String(chunk)), check()));
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, output, stop });
    });
  });
}

let network: RunningApp;

beforeAll(async () => {
  network = await startTestApp();
});

afterAll(async () => {
  await network.stop();
});

describe('npm start on signet, the devnet playing the network', () => {
  it('serves the configured UNIT rune id and services to the page', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'unit-signet-start-'));
    const env: Record<string, string> = {
      ...signetEnvFor(network.url, {
        unitRuneId: network.devnet!.unitRuneId,
        guardianKey: bytesToHex(network.keys.guardianSecretKey),
      }),
      DATA_DIR: dataDir,
      PORT: '0',
      LOG_LEVEL: 'info',
    };
    const run = await runMain(env, (out) => out.includes('UNIT vault app listening'));
    try {
      const address = /"address":"(http:\/\/[^"]+)"/.exec(run.output)?.[1];
      expect(address).toBeDefined();
      const config = (await (await fetch(`${address}/api/config`)).json()) as ConfigDto;
      expect(config.network).toBe('signet');
      expect(config.unitRuneId).toBe(network.devnet!.unitRuneId);
      expect(config.unitRuneId).not.toBe('');
      expect(config.esploraUrl).toBe(`${network.url}/esplora`);
      expect(config.runesUrl).toBe(`${network.url}/runes`);
      // The same guardian key: the treasury the network's genesis paid is this server's.
      expect(config.treasuryPubkey).toBe(network.keys.treasuryPubkey);
      // No secret in what the server printed.
      expect(run.output).not.toContain(env.GUARDIAN_KEY!);
      expect(run.output).not.toContain(fs.readFileSync(env.ORACLE_KEY_FILE!, 'utf8').slice(15, 79));
    } finally {
      await run.stop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('lists every missing part at once, a missing GUARDIAN_KEY among them, before starting', async () => {
    const run = await runMain(
      { NETWORK: 'signet', ESPLORA_URL: `${network.url}/esplora`, PRICE_SOURCE: 'feeds' },
      () => false,
    );
    expect(run.code).toBe(2);
    expect(run.output).toMatch(/^Invalid configuration:/);
    for (const name of [
      'MEMPOOL_URL',
      'ORDINALS_URL',
      'RUNES_URL',
      'EXPLORER_URL',
      'UNIT_RUNE_ID',
      'GUARDIAN_KEY',
      'ORACLE_KEY_FILE',
      'PRICE_FEEDS',
      'PUBLIC_ORIGIN',
    ])
      expect(run.output).toContain(`  ${name}`);
    expect(run.output).not.toContain('starting');
    expect(run.output).not.toMatch(/\n\s+at /); // no stack trace
  });
});

// `npm start` on the devnet (its default local guardian network) with PRICE_SOURCE=feeds: the
// embedded guardians read PRICE_FEEDS as their own feeds, so the feeds are asked and the app's price
// is their quorum at the feeds' price. The real server entry (src/main.ts, bundled: test/bins.ts) in
// a child process, as `npm start` runs it, against two local exchanges. Its log says the guardians are starting (info)
// while they start, never that they are unreachable before they had the chance.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nodeArgs } from '../../../../packages/guardian-net/test/bins';
import { startFakeFeed, type FakeFeed } from '../price-feeds';

const SERVER_DIR = path.resolve(import.meta.dirname, '../..');

let feeds: FakeFeed[];
let child: ChildProcess;
let output = '';
let dataDir: string;

interface LogLine {
  level: number;
  msg: string;
  address?: string;
}

const lines = (): LogLine[] =>
  output
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as LogLine);

async function waitFor<T>(what: string, probe: () => Promise<T | null> | T | null): Promise<T> {
  const deadline = Date.now() + 120_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`server exited ${child.exitCode}:\n${output}`);
    const value = await probe();
    if (value !== null) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}:\n${output}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

beforeAll(async () => {
  feeds = await Promise.all([
    startFakeFeed('mempool', { answer: 'price', usd: '71000' }),
    startFakeFeed('coinbase', { answer: 'price', usd: '71000.00' }),
  ]);
  dataDir = mkdtempSync(path.join(os.tmpdir(), 'unit-local-feeds-'));
  child = spawn(process.execPath, nodeArgs(path.join(SERVER_DIR, 'src/main.ts')), {
    cwd: SERVER_DIR,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      DATA_DIR: dataDir,
      PORT: '0',
      HOST: '127.0.0.1',
      GUARDIAN_BASE_PORT: '0',
      BLOCK_INTERVAL: '0',
      LOG_LEVEL: 'info',
      PRICE_SOURCE: 'feeds',
      PRICE_FEEDS: feeds.map((f) => f.entry).join(','),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.on('data', (b: Buffer) => (output += b.toString()));
  child.stderr!.on('data', (b: Buffer) => (output += b.toString()));
}, 30_000);

afterAll(async () => {
  if (child && child.exitCode === null) {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
  }
  await Promise.all(feeds.map((f) => f.close()));
  rmSync(dataDir, { recursive: true, force: true });
});

describe('PRICE_FEEDS with the local guardian network', () => {
  it("reaches the embedded guardians: the feeds are asked and the app's price is theirs", async () => {
    const url = await waitFor('the server to listen', () => {
      return lines().find((l) => l.msg === 'UNIT vault app listening')?.address ?? null;
    });
    await waitFor('the guardian network', () =>
      output.includes('guardian network ready') ? true : null,
    );
    const price = await waitFor('the quorum price', async () => {
      const res = await fetch(`${url}/api/bitcoin-price`).catch(() => null);
      if (res?.status !== 200) return null;
      const body = (await res.json()) as { USD: number; stale: boolean };
      return body.USD === 71_000 && !body.stale ? body : null;
    });
    expect(price.USD).toBe(71_000);
    expect(feeds[0]!.requests).toContain('/api/v1/prices');
    expect(feeds[1]!.requests).toContain('/v2/prices/BTC-USD/spot');
  }, 180_000);

  it('said the guardians were starting as info, with no warning before they had started', () => {
    const log = lines();
    const ready = log.findIndex((l) => l.msg.startsWith('guardian network ready'));
    expect(ready).toBeGreaterThan(0);
    const before = log.slice(0, ready);
    // No warning at all before the guardians were ready; their start said once, as info.
    expect(before.filter((l) => l.level >= 40)).toEqual([]);
    const waiting = log.filter(
      (l) => l.msg === 'waiting for the guardians to start and sign their first prices',
    );
    expect(waiting.map((l) => l.level)).toEqual([30]);
  });
});

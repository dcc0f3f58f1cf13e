// A `--policy vault` guardian off the devnet checks requests against facts of its own: started
// without any of its pins (network, rune id, oracle key, its own esplora), the real process stops
// with one sentence naming every missing one, before it listens or reads anything from the app.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { pinProblems } from '../src/vault-policy/pinned-facts';
import { CLI, run } from './harness';

const dir = mkdtempSync(join(tmpdir(), 'pinned-facts-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** `guardian start --policy vault` with `flags`: its exit code and what it wrote. */
async function startVault(flags: string[]) {
  const proc = run(CLI, ['start', '--id', '1', '--dir', join(dir, 'g1'), '--policy', 'vault', ...flags]); // prettier-ignore
  return { code: await proc.exited, output: proc.output() };
}

describe('a --policy vault guardian off the devnet', () => {
  it('refuses to start without its pins, naming every missing one', async () => {
    // The app at this origin is never asked: nothing listens there.
    const { code, output } = await startVault([
      '--network',
      'signet',
      '--app',
      'http://127.0.0.1:9',
    ]);
    expect(code).toBe(1);
    expect(output).toContain(
      'guardian: A --policy vault guardian needs --rune-id <block:tx of UNIT>, ' +
        "--oracle-key <the oracle's x-only key, 64 hex>, --chain <its own esplora URL>. " +
        "Off the devnet (signet) a guardian checks requests against facts of its own, never the app's word.",
    );
    expect(output).not.toContain('"event":"listening"');
  }, 60_000);

  it('takes no network at all for a real one: the network is missing too', async () => {
    const { code, output } = await startVault([
      '--app',
      'http://127.0.0.1:9',
      '--rune-id',
      '840000:3',
      '--chain',
      'http://127.0.0.1:9/esplora',
    ]);
    expect(code).toBe(1);
    expect(output).toMatch(/needs --network <signet\|mutinynet\|mainnet>, --oracle-key/);
    // The app's own esplora is not a chain of its own.
    expect(output).toContain(
      "--chain at an esplora of its own, not the app's origin http://127.0.0.1:9",
    );
  }, 60_000);
});

describe('pinProblems', () => {
  const app = 'http://app.example';
  const full = {
    network: 'mainnet',
    app,
    'rune-id': '840000:3',
    'oracle-key': 'ab'.repeat(32),
    chain: 'http://esplora.example/api',
  };

  it('accepts a guardian with every pin of its own', () => {
    expect(pinProblems(full, ['kraken', 'coinbase'])).toEqual([]);
  });

  it("refuses the app's market as its price feed, a malformed key and an unknown network", () => {
    expect(pinProblems({ ...full, 'oracle-key': 'AB' }, ['devnet'])).toEqual([
      '--oracle-key as 64 lowercase hex characters',
      "--feeds of exchanges (a devnet@ feed is the app's market)",
    ]);
    expect(pinProblems({ ...full, network: 'testnet4' })[0]).toMatch(/--network one of devnet/);
  });

  it('on the devnet needs only the app: the rest it reads from there', () => {
    expect(pinProblems({ network: 'devnet', app }, ['devnet'])).toEqual([]);
    expect(pinProblems({ network: 'devnet' })).toEqual(['--app <the app origin it serves>']);
  });
});

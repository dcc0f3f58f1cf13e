// The operator's command lines as a shell runs them: `--help` of `npm run operator` and
// `npm run guardian` prints the usage and exits 0 (so npm adds no failure block); an unknown
// command is one line and exit 2; and `npm start` on a bad configuration lists the problems from
// its check step and stops there, before the web app's build.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { nodeArgs } from '../../../../packages/guardian-net/test/bins';

const REPO = path.resolve(import.meta.dirname, '../../../..');
const OPERATOR_CLI = 'apps/server/src/operator/cli.ts';
const GUARDIAN_CLI = 'packages/guardian-net/src/cli.ts';
const dirs: string[] = [];

afterAll(() => {
  for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
});

/** A command in the repository root with only PATH, HOME and `env`: its exit code and output. */
function run(
  command: string,
  args: string[],
  env: Record<string, string> = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(command, args, {
    cwd: REPO,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (b: Buffer) => (stdout += b.toString()));
  child.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
  return new Promise((resolve) => child.once('exit', (code) => resolve({ code, stdout, stderr })));
}

/** `cli` run directly, from its test bundle (bins.ts); `npm run` below runs it as a shell does. */
const direct = (cli: string, ...args: string[]) =>
  run(process.execPath, [...nodeArgs(path.join(REPO, cli)), ...args]);

describe('--help and unknown commands', () => {
  it('operator: --help prints the usage and exits 0; an unknown command is one line and exit 2', async () => {
    const help = await direct(OPERATOR_CLI, '--help');
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^usage: npm run operator -- <command>\n/);
    expect(help.stdout).toContain('treasury move [--fee-rate R]');
    expect(help.stderr).toBe('');
    const unknown = await direct(OPERATOR_CLI, 'tresury');
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toBe(
      'unknown command "tresury": run `npm run operator -- --help` for the commands\n',
    );
  }, 60_000);

  it('guardian: --help prints the usage and exits 0; an unknown command is one line and exit 2', async () => {
    const help = await direct(GUARDIAN_CLI, '--help');
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^usage:\n {2}guardian init --dir <new guardian dir>/);
    expect(help.stdout).toContain('guardian start --dir <guardian dir>');
    expect(help.stderr).toBe('');
    const unknown = await direct(GUARDIAN_CLI, 'strat');
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toBe(
      'guardian: unknown command "strat": run `npm run guardian -- --help` for the commands\n',
    );
  }, 60_000);

  it('through npm: --help exits 0 with no npm error block', async () => {
    for (const script of ['operator', 'guardian']) {
      const help = await run('npm', ['run', script, '--', '--help']);
      expect(help.code, `${script}: ${help.stderr}`).toBe(0);
      expect(help.stdout).toContain('usage:');
      expect(help.stderr).not.toMatch(/npm error/);
      const unknown = await run('npm', ['run', script, '--', 'nonsense']);
      expect(unknown.code).toBe(2);
    }
  }, 120_000);
});

describe('npm start on a bad configuration', () => {
  it('lists every problem from the check step and stops before the web build', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'unit-start-check-'));
    dirs.push(dataDir);
    // A signet start with nothing named, and a price setting that would be ignored on the devnet.
    const env = { DATA_DIR: dataDir, NETWORK: 'signet', PRICE_SOURCE: 'simulated' };
    const check = await run('npm', ['run', '-s', 'check-config', '-w', '@unit/server'], env);
    expect(check.code).toBe(2);
    expect(check.stderr).toMatch(/^Invalid configuration:\n/);
    for (const setting of [
      'ESPLORA_URL',
      'GUARDIAN_KEY',
      'ORACLE_KEY_FILE',
      'PRICE_SOURCE=simulated',
    ])
      expect(check.stderr).toContain(setting);

    const start = await run('npm', ['start'], env);
    expect(start.code).not.toBe(0);
    expect(start.stderr).toContain('Invalid configuration:');
    expect(start.stderr).toContain('ESPLORA_URL');
    // The build never ran: vite never announced itself nor its bundle.
    expect(start.stdout).toContain('check-config');
    expect(start.stdout + start.stderr).not.toMatch(/vite v\d|built in \d/);
  }, 120_000);

  it('a good configuration passes the check step silently', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'unit-start-check-'));
    dirs.push(dataDir);
    const check = await run('npm', ['run', '-s', 'check-config', '-w', '@unit/server'], {
      DATA_DIR: dataDir,
    });
    expect(check.code, check.stderr).toBe(0);
    expect(check.stderr).toBe('');
  }, 60_000);
});

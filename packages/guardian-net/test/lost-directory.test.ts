// A lost guardian directory is reported, not looped: `guardian local` stops restarting a guardian
// whose starts fail again and again (its directory emptied) and says so once, with the guardian's
// own error; and no start writes a new identity or oracle secret into an installed guardian's
// directory (a share file, or a published set naming it), so restoring the backup still works.
import { execFileSync } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GuardianNode } from '../src/node';
import { LostGuardianFileError } from '../src/installed-dir';
import { RestartPolicy } from '../src/local-process';
import { readStopped } from '../src/local-stopped';
import { verifySet, type GuardianSet } from '../src/guardian-set';
import { CLI, run, waitHealthy, type Proc } from './harness';

describe('RestartPolicy', () => {
  it('gives up after three quick failures in a row, and restarts a guardian that had been running', () => {
    const quick = new RestartPolicy({ healthyRunMs: 60_000, maxQuickFailures: 3 });
    expect([
      quick.exited(0, 1_000),
      quick.exited(2_000, 3_000),
      quick.exited(4_000, 5_000),
    ]).toEqual([true, true, false]);
    const crashing = new RestartPolicy({ healthyRunMs: 60_000, maxQuickFailures: 3 });
    // Each run a day long: a crash now and then is restarted however many there are.
    for (let day = 0; day < 5; day++)
      expect(crashing.exited(day * 86_400_000, (day + 1) * 86_400_000 - 1)).toBe(true);
    // Then two quick failures and one long run: the long run clears the count.
    expect(crashing.exited(0, 10)).toBe(true);
    expect(crashing.exited(20, 30)).toBe(true);
    expect(crashing.exited(40, 100_000)).toBe(true);
    expect(crashing.exited(100_000, 100_010)).toBe(true);
  });
});

describe('guardian local with a lost directory', () => {
  const dir = mkdtempSync(join(tmpdir(), 'guardian-lost-'));
  let local: Proc;
  let set: GuardianSet;
  const guardianDir = (id: number) => join(dir, `guardian-${id}`);

  beforeAll(async () => {
    local = run(CLI, ['local', '--dir', dir, '--n', '3', '--t', '2', '--base-port', '0']);
    const setFile = join(dir, 'guardian-set.json');
    const deadline = Date.now() + 90_000;
    while (!existsSync(setFile) || !local.output().includes('network-running')) {
      if (Date.now() > deadline) throw new Error(`no network: ${local.output()}`);
      await new Promise((r) => setTimeout(r, 200));
    }
    set = verifySet(JSON.parse(readFileSync(setFile, 'utf8')));
    await Promise.all(set.members.map((m) => waitHealthy(m.url, 60_000)));
  }, 120_000);

  afterAll(async () => {
    local?.child.kill('SIGTERM');
    await local?.exited;
    rmSync(dir, { recursive: true, force: true });
  });

  /** A copy of guardian 1's installed directory without `missing`. */
  const copyWithout = (...missing: string[]) => {
    const copy = mkdtempSync(join(tmpdir(), 'guardian-restored-'));
    cpSync(guardianDir(1), copy, { recursive: true });
    for (const name of missing) rmSync(join(copy, name), { recursive: true });
    for (const name of readdirSync(copy))
      if (name.startsWith('store.sqlite')) rmSync(join(copy, name));
    return copy;
  };
  const startIn = (copy: string, namedInSet = false) =>
    new GuardianNode({ id: 1, dir: copy, validate: () => ({ approve: true }), namedInSet });

  it('refuses to make a new identity or oracle secret beside a share file, naming the file to restore', () => {
    expect(readdirSync(guardianDir(1))).toEqual(
      expect.arrayContaining(['identity.json', 'oracle.json', 'share.json', 'guardian-set.json']),
    );
    // A running guardian's database (with its log and shared memory) and secrets: owner-only.
    const own = readdirSync(guardianDir(1)).filter((n) =>
      /^(store\.sqlite|identity|oracle|share)/.test(n),
    );
    expect(own).toEqual(
      expect.arrayContaining(['store.sqlite', 'store.sqlite-wal', 'store.sqlite-shm']),
    );
    for (const name of own)
      expect([name, (statSync(join(guardianDir(1), name)).mode & 0o777).toString(8)]).toEqual([
        name,
        '600',
      ]);
    for (const missing of ['identity.json', 'oracle.json']) {
      const copy = copyWithout(missing);
      try {
        expect(() => startIn(copy)).toThrow(LostGuardianFileError);
        expect(() => startIn(copy)).toThrow(
          new RegExp(
            `has no ${missing.replace('.', '\\.')}, but it belongs to an installed guardian \\(it holds .*share\\.json.*Restore ${missing.replace('.', '\\.')} from this guardian's backup`,
          ),
        );
        // Nothing was written in its place: restoring the backup's file is all it takes.
        expect(existsSync(join(copy, missing))).toBe(false);
        cpSync(join(guardianDir(1), missing), join(copy, missing));
        const node = startIn(copy);
        expect(node.identity.publicKey).toBe(set.members[0]!.identityKey);
        void node.close();
      } finally {
        rmSync(copy, { recursive: true, force: true });
      }
    }
    // Only the share left (its set file, public part and approvals lost too): still an installed
    // guardian's.
    const copy = copyWithout('identity.json', 'oracle.json', 'guardian-set.json', 'guardian.json', 'approvals'); // prettier-ignore
    try {
      expect(() => startIn(copy)).toThrow(/has no identity\.json, oracle\.json/);
      expect(readdirSync(copy).sort()).toEqual(['share.json']);
    } finally {
      rmSync(copy, { recursive: true, force: true });
    }
    // An empty directory of a guardian a published set names: refused too.
    const empty = mkdtempSync(join(tmpdir(), 'guardian-empty-'));
    try {
      expect(() => startIn(empty, true)).toThrow(/a published guardian set names this guardian/);
      expect(readdirSync(empty)).toEqual([]);
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  });

  it('stops restarting a guardian whose directory was emptied, and reports it once with its error', async () => {
    const lines = () => local.output().split('\n');
    const events = (event: string) =>
      lines().filter((l) => l.includes(`"event":"${event}"`) && l.includes('"guardian":2'));
    const victim = guardianDir(2);
    // The running guardian 2, by its own command line (cli.ts `start --id 2 --dir <its dir>`).
    const pid = execFileSync('ps', ['-eo', 'pid=,args='], { encoding: 'utf8' })
      .split('\n')
      .find((l) => l.includes(` start --id 2 --dir ${victim} `))
      ?.trim()
      .split(/\s+/)[0];
    expect(pid).toMatch(/^\d+$/);
    for (const name of readdirSync(victim)) rmSync(join(victim, name), { recursive: true });
    process.kill(Number(pid), 'SIGKILL');

    const deadline = Date.now() + 60_000;
    while (events('guardian-stopped').length === 0) {
      if (Date.now() > deadline) throw new Error(`not reported: ${local.output()}`);
      await new Promise((r) => setTimeout(r, 200));
    }
    // Long enough for two more restarts, had it kept going.
    await new Promise((r) => setTimeout(r, 3_000));
    const exits = events('guardian-exited').length;
    expect(exits).toBeGreaterThanOrEqual(1);
    expect(exits).toBeLessThanOrEqual(3);
    expect(events('guardian-stopped')).toHaveLength(1);
    const stopped = JSON.parse(events('guardian-stopped')[0]!) as {
      message: string;
      reason: string;
      level: string;
    };
    expect(stopped.level).toBe('error');
    expect(stopped.reason).toMatch(
      /guardian 2's directory .* has no identity\.json, oracle\.json, share\.json, guardian-set\.json/,
    );
    expect(stopped.message).toMatch(
      /^guardian 2 stopped: it failed 3 times in a row right after starting, and is not started again\. Its last error: .*restore it from this guardian's backup/,
    );
    // Its failed starts wrote no new identity or oracle secret into the lost directory.
    expect(existsSync(join(victim, 'identity.json'))).toBe(false);
    expect(existsSync(join(victim, 'oracle.json'))).toBe(false);
    expect(readStopped(dir).map((s) => s.guardian)).toEqual([2]);
    // The others run on.
    for (const m of set.members.filter((m) => m.id !== 2)) await waitHealthy(m.url, 5_000);
  }, 90_000);
});

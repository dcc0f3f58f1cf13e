// `guardian init` and `guardian dkg`: a guardian made on its own machine, and the network's first
// DKG run by a coordinator that holds only its own identity key, among guardians that each run
// from their own directory. The embedded network (`guardian dkg --dir` without --members, and
// `guardian local`) goes through the same path on one machine.
import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { resumeInstall, runFirstDkg } from './dkg-coordinator';
import { ensureGuardianDir, initGuardian, parsePublicPart, type PublicPart } from './guardian-init';
import { parseSetBody, verifySet, type GuardianSet, type GuardianSetBody } from './guardian-set';
import { ensureIdentity } from './identity';
import { freeLoopbackPorts, onParentGone, stopChildren } from './local-process';
import { localUrl } from './node-http';

export interface DkgDeps {
  spawnGuardian: (dir: string, id: number, port: number, extra: string[]) => ChildProcess;
  waitHealthy: (member: { url: string; identityKey: string }) => Promise<void>;
  log: (event: Record<string, unknown>) => void;
}

/** `guardian init --dir <dir> --url <its public URL> [--name <name>]`: prints its public part. */
export function initCommand(args: string[]): void {
  const { values } = parseArgs({
    args,
    options: { dir: { type: 'string' }, url: { type: 'string' }, name: { type: 'string' } },
  });
  if (!values.dir || !values.url)
    throw new Error('usage: guardian init --dir <new guardian dir> --url <its public URL> [--name <name>]'); // prettier-ignore
  const part = initGuardian(resolve(values.dir), values.url, values.name);
  process.stdout.write(JSON.stringify(part) + '\n');
}

/**
 * `guardian coordinator-key --dir <network dir>`: the coordinator's identity key (made if absent),
 * for guardian operators who pin it with `start --coordinator`.
 */
export function coordinatorKeyCommand(args: string[]): void {
  const { values } = parseArgs({ args, options: { dir: { type: 'string' } } });
  if (!values.dir) throw new Error('usage: guardian coordinator-key --dir <network dir>');
  const dir = join(resolve(values.dir), 'coordinator');
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  process.stdout.write(ensureIdentity(join(dir, 'identity.json')).publicKey + '\n');
}

/** The members' public parts: a JSON array, or one JSON object a line (init's output, concatenated). */
export function readMembers(file: string): PublicPart[] {
  const text = readFileSync(file, 'utf8').trim();
  const raw: unknown[] = text.startsWith('[')
    ? (JSON.parse(text) as unknown[])
    : text
        .split('\n')
        .filter((l) => l.trim())
        .map((l) => JSON.parse(l) as unknown);
  if (!Array.isArray(raw)) throw new Error(`${file} must list the members' public parts`);
  return raw.map((r, i) => parsePublicPart(r, `${file}, member ${i + 1}`));
}

/** The first roster: members in the given order (ids 1..n), this coordinator, threshold t. */
export function rosterOf(members: PublicPart[], t: number, coordinator: string): GuardianSetBody {
  return parseSetBody({
    kind: 'unit/guardian-set',
    version: 0,
    t,
    n: members.length,
    members: members.map((m, i) => ({ id: i + 1, ...m })),
    coordinators: [{ name: 'coordinator', identityKey: coordinator }],
  });
}

/**
 * The coordinator's first DKG: its network directory holds only `coordinator/identity.json` (made
 * here if absent), then `roster.json`, the set once every member signed it (`certified-set.json`,
 * from which a stopped install is sent again), and once every member installed it
 * `guardian-set.json`: the layout the app server reads from GUARDIAN_DIR. No share is ever here.
 */
export async function coordinatorDkg(
  dir: string,
  members: PublicPart[],
  t: number,
  log: DkgDeps['log'],
): Promise<GuardianSet | null> {
  const setPath = join(dir, 'guardian-set.json');
  if (existsSync(setPath)) {
    log({ event: 'dkg-skipped', reason: `${setPath} exists` });
    return null;
  }
  mkdirSync(join(dir, 'coordinator'), { recursive: true, mode: 0o700 });
  const coordinator = ensureIdentity(join(dir, 'coordinator', 'identity.json'));
  // A set every member signed but not every member installed: send the install again.
  const certifiedPath = join(dir, CERTIFIED);
  let set: GuardianSet;
  if (existsSync(certifiedPath)) {
    set = verifySet(JSON.parse(readFileSync(certifiedPath, 'utf8')), { everyMember: true });
    log({ event: 'dkg-resume-install', groupKey: set.groupKey });
    await resumeInstall(set, coordinator);
  } else {
    const roster = rosterOf(members, t, coordinator.publicKey);
    writeFileSync(join(dir, 'roster.json'), JSON.stringify(roster, null, 2) + '\n');
    const onCertified = (s: GuardianSet) => writeFileSync(certifiedPath, JSON.stringify(s, null, 2) + '\n'); // prettier-ignore
    set = await runFirstDkg(roster, coordinator, { log, onCertified });
  }
  writeFileSync(setPath, JSON.stringify(set, null, 2) + '\n');
  rmSync(certifiedPath, { force: true });
  log({ event: 'dkg-complete', t: set.t, n: set.n, groupKey: set.groupKey, set: setPath });
  return set;
}

export interface LocalDkgOptions {
  dir: string;
  n: number;
  t: number;
  basePort: number;
  exitWithParent: boolean;
}

/** The set every member signed, kept until every member installed it. */
export const CERTIFIED = 'certified-set.json';

export const guardianDir = (dir: string, id: number) => join(dir, `guardian-${id}`);

/**
 * The embedded network's DKG on one machine, through the same path: each guardian's directory
 * made as `guardian init` makes it (kept if it exists), each guardian started from its own
 * directory waiting for its roster, then the coordinator's DKG over loopback.
 */
export async function localDkg(o: LocalDkgOptions, deps: DkgDeps): Promise<void> {
  if (existsSync(join(o.dir, 'guardian-set.json'))) {
    deps.log({ event: 'dkg-skipped', reason: `${join(o.dir, 'guardian-set.json')} exists` });
    return;
  }
  // Base port 0: free ports now; they are in the set, so every later start uses the same ones.
  const ports =
    o.basePort === 0
      ? await freeLoopbackPorts(o.n)
      : Array.from({ length: o.n }, (_, i) => o.basePort + i);
  mkdirSync(o.dir, { recursive: true, mode: 0o700 });
  const members = ports.map((port, i) =>
    ensureGuardianDir(guardianDir(o.dir, i + 1), localUrl(port), `guardian-${i + 1}`),
  );
  const children = ports.map((port, i) => deps.spawnGuardian(o.dir, i + 1, port, []));
  const watching = o.exitWithParent
    ? onParentGone(() => void stopChildren(children).then(() => process.exit(1)))
    : () => undefined;
  try {
    await Promise.all(members.map((m) => deps.waitHealthy(m)));
    await coordinatorDkg(o.dir, members, o.t, deps.log);
  } finally {
    watching();
    await stopChildren(children);
  }
}

/** `guardian dkg --dir <network dir> --members <file> [--t 2]`: guardians already running. */
export async function membersDkg(args: string[], log: DkgDeps['log']): Promise<void> {
  const { values } = parseArgs({
    args,
    options: {
      dir: { type: 'string' },
      members: { type: 'string' },
      t: { type: 'string', default: '2' },
    },
  });
  if (!values.dir || !values.members)
    throw new Error('usage: guardian dkg --dir <network dir> --members <file> [--t 2]');
  const t = Number(values.t);
  if (!Number.isSafeInteger(t) || t < 2) throw new Error('--t must be an integer of at least 2');
  await coordinatorDkg(resolve(values.dir), readMembers(values.members), t, log);
}

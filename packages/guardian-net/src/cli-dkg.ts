// `guardian init` and `guardian dkg`: a guardian made on its own machine, and the network's first
// DKG run by a coordinator that holds only its own identity key, among guardians that each run
// from their own directory. The embedded network (`guardian dkg --dir` without --members, and
// `guardian local`) goes through the same path on one machine.
import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { DkgFailure, resumeInstall, runFirstDkg } from './dkg-coordinator';
import { rosterDigest } from './approval';
import { approveFirstRoster } from './approve-first';
import type { DkgTranscript } from './dkg-recovery';
import { ensureGuardianDir, initGuardian, parsePublicPart, type PublicPart } from './guardian-init';
import { parseSetBody, verifySet, type GuardianSet, type GuardianSetBody } from './guardian-set';
import { ensureIdentity, type Identity } from './identity';
import { freeLoopbackPorts, onParentGone, stopChildren } from './local-process';
import { localUrl } from './node-http';
import { HEALTH_MAX_BYTES, readPublic, type PublicTarget } from './public-read';

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
  retry: RetryOptions = { retries: 0, waitMs: 0 },
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
    const rosterPath = join(dir, 'roster.json');
    writeFileSync(rosterPath, JSON.stringify(roster, null, 2) + '\n');
    try {
      set = await firstDkgWithRetries(dir, roster, coordinator, retry, log);
    } catch (e) {
      if (!(e instanceof DkgFailure) || e.notApproved.length === 0) throw e;
      throw new Error(notApprovedMessage(roster, e, rosterPath));
    }
  }
  writeFileSync(setPath, JSON.stringify(set, null, 2) + '\n');
  rmSync(certifiedPath, { force: true });
  log({ event: 'dkg-complete', t: set.t, n: set.n, groupKey: set.groupKey, set: setPath });
  return set;
}

/** The command an operator runs on guardian `id`'s machine to approve the first roster. */
export const approveFirstCommand = (id: number, rosterPath: string) =>
  `npm run guardian -- approve --kind dkg --dir <guardian ${id}'s own directory> --roster ${rosterPath}`;

/** Why the DKG did not start: who has not approved the roster, and what each operator runs. */
function notApprovedMessage(roster: GuardianSetBody, e: DkgFailure, rosterPath: string): string {
  const ids = e.notApproved;
  const who = ids.map((id) => `guardian ${id}`).join(', ');
  const commands = ids.map((id) => `guardian ${id}: ${approveFirstCommand(id, rosterPath)}`);
  return `The DKG did not start: ${who} ${ids.length === 1 ? 'has' : 'have'} not approved this roster (digest ${rosterDigest(roster)}), and no guardian took part. Each one's operator reads and approves it on that guardian's own machine (${commands.join('; ')}; add --yes once the summary is right), then run this dkg command again (${e.message}).`;
}

/** How often a first DKG that failed for want of a member is run again, and how long to wait. */
export interface RetryOptions {
  retries: number;
  /** the longest wait for every member to be up and waiting for a roster again */
  waitMs: number;
}

/** Resolves once every member answers its health check waiting for a roster; throws at the deadline. */
async function allWaiting(roster: GuardianSetBody, waitMs: number): Promise<void> {
  const deadline = Date.now() + waitMs;
  // Over the member's own link: TLS pinned to its identity key on an https URL.
  const waiting = async (m: PublicTarget) => {
    const res = await readPublic(m, '/v1/health', { timeoutMs: 2_000, maxBytes: HEALTH_MAX_BYTES });
    return (res.body as { state?: unknown } | null)?.state === 'waiting';
  };
  for (;;) {
    const states = await Promise.all(roster.members.map((m) => waiting(m).catch(() => false)));
    if (states.every(Boolean)) return;
    if (Date.now() > deadline)
      throw new Error(`guardian ${roster.members.filter((_, i) => !states[i]).map((m) => m.id).join(', ')} did not come back waiting for a roster within ${Math.round(waitMs / 1000)} s.`); // prettier-ignore
    await new Promise((r) => setTimeout(r, 500));
  }
}

/**
 * The first DKG, run again with a fresh session (so fresh polynomials) after a failure that names
 * no culprit (a member crashed, timed out or refused), once every member is back: a failed attempt
 * was aborted on every member, so each run starts clean and none ends on another key. A proven bad
 * share is never retried. The certificate and the transcript are written before any install.
 */
async function firstDkgWithRetries(
  dir: string,
  roster: GuardianSetBody,
  coordinator: Identity,
  retry: RetryOptions,
  log: DkgDeps['log'],
): Promise<GuardianSet> {
  const onCertified = (s: GuardianSet, transcript: DkgTranscript) => {
    writeFileSync(join(dir, TRANSCRIPT), JSON.stringify(transcript, null, 2) + '\n');
    writeFileSync(join(dir, CERTIFIED), JSON.stringify(s, null, 2) + '\n');
  };
  for (let attempt = 1; ; attempt++) {
    try {
      return await runFirstDkg(roster, coordinator, { log, onCertified });
    } catch (e) {
      if (!(e instanceof DkgFailure) || e.blamed.length > 0 || e.notApproved.length > 0) throw e;
      if (attempt > retry.retries) throw e;
      log({ event: 'dkg-retry', attempt, failed: e.failed, reason: e.message });
      await allWaiting(roster, retry.waitMs);
    }
  }
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
/** The first DKG's public transcript, kept for each member's recovery (dkg-recovery.ts). */
export const TRANSCRIPT = 'dkg-transcript.json';

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
  // The embedded network's one operator approves the roster for each of its guardians, through the
  // same check and record as `approve --kind dkg` on a guardian's own machine.
  if (!existsSync(join(o.dir, CERTIFIED))) {
    mkdirSync(join(o.dir, 'coordinator'), { recursive: true, mode: 0o700 });
    const coordinator = ensureIdentity(join(o.dir, 'coordinator', 'identity.json'));
    const roster = rosterOf(members, o.t, coordinator.publicKey);
    members.forEach((_, i) => approveFirstRoster(guardianDir(o.dir, i + 1), roster, true));
  }
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
      retries: { type: 'string', default: '0' },
      'retry-wait': { type: 'string', default: '120' },
    },
  });
  if (!values.dir || !values.members)
    throw new Error('usage: guardian dkg --dir <network dir> --members <file> [--t 2] [--retries 0] [--retry-wait 120]'); // prettier-ignore
  const t = Number(values.t);
  if (!Number.isSafeInteger(t) || t < 2) throw new Error('--t must be an integer of at least 2');
  const retries = Number(values.retries);
  const waitS = Number(values['retry-wait']);
  if (!Number.isSafeInteger(retries) || retries < 0 || !(waitS > 0))
    throw new Error(
      '--retries is a whole number (0 or more) and --retry-wait a number of seconds.',
    );
  const retry = { retries, waitMs: waitS * 1000 };
  await coordinatorDkg(resolve(values.dir), readMembers(values.members), t, log, retry);
}

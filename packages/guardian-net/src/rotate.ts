// `npm run guardian -- rotate`: replaces guardians by a new DKG for the next set (version v+1),
// handed over by the current set (docs/protocol.md, "Guardian rotation"). Members that stay keep
// their identity key, URL, directory and running process: each joins the next set's DKG while it
// still signs for set v, and afterwards holds a share of both. Each replaced or added member is a
// new guardian with a new identity key and directory under the next network directory. Once every
// member of v+1 signed it, at least t running guardians of set v each check it and sign the
// handover; only then is v+1 installed.
import type { ChildProcess } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { schnorr } from '@noble/curves/secp256k1.js';
import { parseHex } from './canonical';
import { runDkg } from './coordinator';
import {
  handoverDigest,
  parseSetBody,
  previousOf,
  verifySet,
  type GuardianSet,
  type GuardianSetBody,
  type Member,
} from './guardian-set';
import { ensureIdentity, loadIdentity, type Identity } from './identity';
import { NOT_APPROVED, rosterDigest } from './approval';
import { writeApproval } from './approval-files';
import { approveFirstRoster } from './approve-first';
import { approveRoster } from './approve';
import { callParty, RemoteError } from './transport';

export interface RotationPlan {
  /** ids of set v that leave (a guardian that quits, or whose share leaked) */
  replace: number[];
  n: number;
  t: number;
  /** first port for the new members' URLs on loopback */
  basePort: number;
}

/** The CLI's helpers, passed in so this module does not import the CLI. */
export interface RotateDeps {
  spawnGuardian: (dir: string, id: number, port: number, extra: string[]) => ChildProcess;
  waitHealthy: (member: { url: string; identityKey: string }) => Promise<void>;
  log: (event: Record<string, unknown>) => void;
}

/** Whether `path` is there, a link to a directory not (yet) on this machine included. */
const linked = (path: string) => lstatSync(path, { throwIfNoEntry: false }) !== undefined;

function describe(e: unknown): string {
  const err = e as Error & { code?: string; cause?: { code?: string } };
  if (err.name === 'TimeoutError') return 'timed out';
  if (err.cause?.code) return `unreachable (${err.cause.code})`;
  return err.code ? `${err.code}: ${err.message}` : err.message;
}

/**
 * The roster of set v+1: ids 1..n; an id of set v that is not replaced keeps its member (identity
 * key, name, URL); every other id is a new member whose identity key `newIdentity(id)` gives, on
 * the next free port from `basePort`. Same coordinators; `previous` names set v.
 */
export function nextRoster(
  current: GuardianSet,
  plan: RotationPlan,
  newIdentity: (id: number) => string,
): GuardianSetBody {
  let port = plan.basePort;
  // New members speak as the network does: https (TLS) unless its local set is plain HTTP.
  const scheme = new URL(current.members[0]!.url).protocol;
  const members: Member[] = Array.from({ length: plan.n }, (_, i) => {
    const id = i + 1;
    const stays = id <= current.n && !plan.replace.includes(id);
    if (stays) return current.members[i]!;
    return {
      id,
      name: `guardian-${id}`,
      identityKey: newIdentity(id),
      url: `${scheme}//127.0.0.1:${port++}`,
    };
  });
  return parseSetBody({
    kind: 'unit/guardian-set',
    version: current.version + 1,
    t: plan.t,
    n: plan.n,
    members,
    coordinators: current.coordinators,
    previous: previousOf(current),
  });
}

/**
 * Asks every guardian of `current` to check `next` and sign its handover; keeps each signature that
 * verifies under its identity key. Fewer than t: an error naming each guardian's reason.
 */
export async function collectHandover(
  current: GuardianSet,
  next: GuardianSet,
  coordinator: Identity,
  timeoutMs = 15_000,
): Promise<GuardianSet> {
  const digest = handoverDigest(next);
  const answers = await Promise.all(
    current.members.map(async (m) => {
      try {
        const { payload } = await callParty({
          url: m.url,
          identity: coordinator,
          to: m.identityKey,
          setVersion: current.version,
          type: 'set/handover',
          body: next,
          timeoutMs,
        });
        const sig = payload.body.signature;
        if (!schnorr.verify(parseHex(sig, 64), digest, parseHex(m.identityKey, 32)))
          return { id: m.id, error: 'bad handover signature' };
        return { id: m.id, sig };
      } catch (e) {
        return { id: m.id, error: describe(e) };
      }
    }),
  );
  const handover: Record<string, string> = {};
  for (const a of answers) if (a.sig) handover[String(a.id)] = a.sig;
  if (Object.keys(handover).length < current.t) {
    const why = answers.filter((a) => a.error).map((a) => `guardian ${a.id}: ${a.error}`);
    throw new Error(
      `fewer than ${current.t} guardians of set ${current.version} signed the handover (${why.join('; ')})`,
    );
  }
  return verifySet({ ...next, handover }, { previous: current });
}

/** A staying guardian that did not join the next set's DKG, and why. */
export interface JoinRefusal {
  id: number;
  reason: string;
  /** it refused for want of its own operator's approval of this roster */
  notApproved: boolean;
}

/** Sends `rotate/roster` to every staying guardian of `current`; returns each one that did not join. */
export async function askToJoin(
  current: GuardianSet,
  roster: GuardianSetBody,
  coordinator: Identity,
  timeoutMs = 15_000,
): Promise<JoinRefusal[]> {
  const answers = await Promise.all(
    stayingMembers(current, roster).map(async (m): Promise<JoinRefusal | null> => {
      try {
        await callParty({
          url: m.url,
          identity: coordinator,
          to: m.identityKey,
          setVersion: current.version,
          type: 'rotate/roster',
          body: { roster },
          timeoutMs,
        });
        return null;
      } catch (e) {
        const notApproved = e instanceof RemoteError && e.message.startsWith(NOT_APPROVED);
        return { id: m.id, reason: describe(e), notApproved };
      }
    }),
  );
  return answers.filter((a) => a !== null);
}

/** The members of `roster` that are members of `current` (same identity key). */
export function stayingMembers(current: GuardianSet, roster: GuardianSetBody): Member[] {
  return roster.members.filter((m) => current.members.some((c) => c.identityKey === m.identityKey));
}

/**
 * The rotation among running processes: the members that stay (running as guardians of `current`,
 * each with its operator's approval of `roster`) join the DKG of `roster`, the new members are
 * already running in DKG mode; the set is signed by all its members, handed over by t of `current`
 * (`collect`), and installed on every member of the next set.
 */
export async function runRotation(
  current: GuardianSet,
  roster: GuardianSetBody,
  coordinator: Identity,
  timeoutMs = 15_000,
  collect: typeof collectHandover = collectHandover,
): Promise<GuardianSet> {
  const refused = await askToJoin(current, roster, coordinator, timeoutMs);
  if (refused.length > 0)
    throw new Error(
      refused
        .map((r) => `guardian ${r.id} of set ${current.version} did not join: ${r.reason}`)
        .join('; '),
    );
  return runDkg(roster, coordinator, timeoutMs, {
    previous: current,
    handover: (set) => collect(current, set, coordinator, timeoutMs),
  });
}

function rotateOptions(args: string[]) {
  const { values } = parseArgs({
    args,
    options: {
      dir: { type: 'string' },
      'next-dir': { type: 'string' },
      replace: { type: 'string', multiple: true, default: [] },
      n: { type: 'string' },
      t: { type: 'string' },
      'base-port': { type: 'string' },
      'approve-local': { type: 'boolean' },
    },
  });
  if (!values.dir || !values['next-dir']) throw new Error('rotate needs --dir and --next-dir');
  const dir = resolve(values.dir);
  const current = verifySet(JSON.parse(readFileSync(join(dir, 'guardian-set.json'), 'utf8')));
  const replace = values.replace!.flatMap((r) => r.split(',')).map(Number);
  if (replace.some((id) => !Number.isInteger(id) || id < 1 || id > current.n))
    throw new Error(`--replace takes ids of set ${current.version} (1..${current.n})`);
  const ports = current.members.map((m) => Number(new URL(m.url).port));
  const plan: RotationPlan = {
    replace,
    n: values.n === undefined ? current.n : Number(values.n),
    t: values.t === undefined ? current.t : Number(values.t),
    basePort:
      values['base-port'] === undefined ? Math.max(...ports) + 1 : Number(values['base-port']),
  };
  const approveLocal = values['approve-local'] === true;
  return { dir, current, nextDir: resolve(values['next-dir']), plan, approveLocal };
}

/** The command an operator runs on guardian `m`'s machine to approve the roster at `rosterPath`. */
export function approveCommand(m: Member, rosterPath: string): string {
  return `npm run guardian -- approve --dir <guardian ${m.id}'s own directory> --roster ${rosterPath}`;
}

/**
 * The embedded network's one operator, who runs every guardian from `<dir>/guardian-<id>`: records
 * each staying guardian's approval in that guardian's own directory, as `approve --yes` there.
 */
function approveLocally(dir: string, current: GuardianSet, roster: GuardianSetBody) {
  for (const m of stayingMembers(current, roster)) {
    const old = current.members.find((c) => c.identityKey === m.identityKey)!;
    const own = join(dir, `guardian-${old.id}`);
    if (!existsSync(join(own, 'identity.json')))
      throw new Error(
        `--approve-local needs every staying guardian's own directory, and ${own} holds no guardian; each operator approves on its own machine instead: ${approveCommand(m, '<roster.json>')}.`,
      );
    const approval = approveRoster(own, roster, false);
    if (approval.record.guardian.identityKey !== m.identityKey)
      throw new Error(`${own} holds another guardian than guardian ${old.id} of the set.`);
    writeApproval(own, approval.record);
  }
}

/** Writes `roster` to `path`; one already there (a run refused for want of approvals) must be it. */
function sameRosterAs(path: string, roster: GuardianSetBody): void {
  if (!existsSync(path)) return writeFileSync(path, JSON.stringify(roster, null, 2) + '\n');
  if (rosterDigest(parseSetBody(JSON.parse(readFileSync(path, 'utf8')))) !== rosterDigest(roster))
    throw new Error(
      `${path} holds another roster than these options make; run rotate with the options it was made with, or into a fresh --next-dir.`,
    );
}

/** The command's refusal when a staying guardian did not join: who, why, and what each operator runs. */
function joinRefused(refused: JoinRefusal[], staying: Member[], rosterPath: string): string {
  const why = refused.map((r) => `guardian ${r.id}: ${r.reason}`).join('; ');
  const unapproved = staying.filter((m) => refused.some((r) => r.id === m.id && r.notApproved));
  if (unapproved.length === 0) return `Not every staying guardian joined the rotation (${why}).`;
  const commands = unapproved.map((m) => `guardian ${m.id}: ${approveCommand(m, rosterPath)}`);
  return `The rotation did not start: ${unapproved.map((m) => `guardian ${m.id}`).join(', ')} ${unapproved.length === 1 ? 'has' : 'have'} not approved this roster. Each one's operator reads and approves it on that guardian's own machine (${commands.join('; ')}; add --yes once the summary is right), then run this rotate command again (${why}).`;
}

/**
 * `rotate --dir <current network dir> --next-dir <dir> [--replace <id>,...] [--n N] [--t T]
 * [--base-port P] [--approve-local]`. The current network must be running, and each staying
 * guardian's operator must have approved the roster on its own machine (`approve`); the command
 * prints what each runs, and stops before any DKG when one has not. Run again with the same
 * options, it reuses the roster it wrote. Writes, under the next directory, the roster, the signed
 * set with its handover, a new directory for each new member, and links to the directories of the
 * members that stay and to the coordinator's.
 */
export async function rotate(args: string[], deps: RotateDeps): Promise<void> {
  const { dir, current, nextDir, plan, approveLocal } = rotateOptions(args);
  if (existsSync(join(nextDir, 'guardian-set.json')))
    throw new Error(`${nextDir} already holds a guardian set`);
  mkdirSync(nextDir, { recursive: true, mode: 0o700 });
  const memberDir = (id: number) => join(nextDir, `guardian-${id}`);
  const roster = nextRoster(current, plan, (id) => {
    mkdirSync(memberDir(id), { recursive: true, mode: 0o700 });
    return ensureIdentity(join(memberDir(id), 'identity.json')).publicKey;
  });
  const fresh = roster.members.filter(
    (m) => !current.members.some((c) => c.identityKey === m.identityKey),
  );
  if (roster.n - fresh.length < current.t)
    throw new Error(
      `a rotation keeps at least ${current.t} guardians of set ${current.version}, who hand over; replace fewer at a time`,
    );
  for (const m of roster.members) {
    const old = current.members.find((c) => c.identityKey === m.identityKey);
    if (old && !linked(memberDir(m.id)))
      symlinkSync(join(dir, `guardian-${old.id}`), memberDir(m.id));
  }
  if (!linked(join(nextDir, 'coordinator')))
    symlinkSync(join(dir, 'coordinator'), join(nextDir, 'coordinator'));
  const rosterPath = join(nextDir, 'roster.json');
  sameRosterAs(rosterPath, roster);
  if (approveLocal) approveLocally(dir, current, roster);
  const staying = stayingMembers(current, roster);
  for (const m of approveLocal ? [] : staying)
    deps.log({
      event: 'operator-approval',
      guardian: m.id,
      command: approveCommand(m, rosterPath),
    });
  const coordinator = loadIdentity(join(dir, 'coordinator', 'identity.json'));
  const refused = await askToJoin(current, roster, coordinator);
  if (refused.length > 0) throw new Error(joinRefused(refused, staying, rosterPath));
  // The new members' directories are this command's own (it made their identity keys above): it
  // approves their roster there, as their operator, for `start --roster`.
  for (const m of fresh) approveFirstRoster(memberDir(m.id), roster, true);
  const children = fresh.map((m) =>
    deps.spawnGuardian(nextDir, m.id, Number(new URL(m.url).port), ['--roster', rosterPath]),
  );
  try {
    await Promise.all(fresh.map((m) => deps.waitHealthy(m)));
    const next = await runRotation(current, roster, coordinator);
    const setPath = join(nextDir, 'guardian-set.json');
    // The chain the app server follows (apps/server network-client/set-chain.ts): the older sets.
    for (const name of readdirSync(dir).filter((f) => /^guardian-set-v[0-9]+\.json$/.test(f)))
      copyFileSync(join(dir, name), join(nextDir, name));
    copyFileSync(
      join(dir, 'guardian-set.json'),
      join(nextDir, `guardian-set-v${current.version}.json`),
    );
    writeFileSync(setPath, JSON.stringify(next, null, 2) + '\n');
    deps.log({
      event: 'rotation-complete',
      version: next.version,
      t: next.t,
      n: next.n,
      groupKey: next.groupKey,
      previousGroupKey: current.groupKey,
      handoverBy: Object.keys(next.handover ?? {}).map(Number),
      newMembers: fresh.map((m) => m.id),
      set: setPath,
    });
  } finally {
    children.forEach((c) => c.kill('SIGTERM'));
    await Promise.all(
      children.map((c) => new Promise((r) => (c.exitCode === null ? c.once('exit', r) : r(null)))),
    );
  }
}

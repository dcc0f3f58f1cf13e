// Members changing with the same group key, for the root bench: the time from the coordinator's
// command to a working set, for resharing to a new member (`guardian reshare --replace 3`: the
// new member's seat dealt by two that stay, the set signed and installed) and for repairing a lost
// share (`guardian repair --member 1`: a guardian restarted with only its identity gets a fresh
// share from two others). "Working" is a signature under the group key by the new set, with the
// member that changed as one of its two signers. A 2-of-3 network of real processes (`guardian
// dkg`, TLS links), each member behind a relay (packages/guardian-net/test/relay.ts) that holds
// every message 50 ms each way; the operators' approvals are given before the clock starts.
// `npm run bench:membership -w @unit/server` runs it alone.
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { randomBytes } from 'node:crypto';
import { schnorr } from '@noble/curves/secp256k1.js';
import { hex } from '@scure/base';
import {
  Coordinator,
  HEALTH_MAX_BYTES,
  loadIdentity,
  readPublic,
  verifySet,
  type GuardianSet,
  type Identity,
  type PublicTarget,
} from '@unit/guardian-net';
import { CLI, freePorts, kill9, run, type Proc } from '../../../packages/guardian-net/test/harness';
import { Relay } from '../../../packages/guardian-net/test/relay';
import { runAlone } from './cosign';
import type { Figure } from './measure';

export const DELAY_MS = 50;
// Rare operations an operator starts by hand: the goal is that they end while one waits for them.
const RESHARE_GOAL_MS = 15_000;
const REPAIR_GOAL_MS = 15_000;
/** The guardians' and the CLI's environment: TLS links, whatever the caller's says. */
export const guardianEnv = { ...process.env };
delete guardianEnv.UNIT_GUARDIAN_INSECURE_PLAIN_HTTP;
const env = guardianEnv;

export async function cli(args: string[], code = 0): Promise<string> {
  const p = run(CLI, args, { env });
  if ((await p.exited) !== code)
    throw new Error(`guardian ${args[0]} did not exit ${code}:\n${p.output()}`);
  return p.output();
}

/** Until `target`'s /v1/health (TLS, pinned to its identity key) says `state` (and `version`). */
export async function until(target: PublicTarget, state: string, version?: number): Promise<void> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const read = await readPublic(target, '/v1/health', { timeoutMs: 5_000, maxBytes: HEALTH_MAX_BYTES }).catch(() => null); // prettier-ignore
    const health = read?.body as { state?: string; setVersion?: number } | undefined;
    if (health?.state === state && (version === undefined || health.setVersion === version)) return;
    if (Date.now() > deadline) throw new Error(`${target.url} not ${state} in 60 s`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const readSet = (dir: string, previous?: GuardianSet) =>
  verifySet(JSON.parse(readFileSync(join(dir, 'guardian-set.json'), 'utf8')), previous ? { previous } : {}); // prettier-ignore

/**
 * The changed member `seat` on `set` (its health says so), then a signature by `set` with that
 * member among the signers, checked under the group key (the coordinator prefers it; a session it
 * was too slow for is signed again).
 */
async function signsWith(set: GuardianSet, coordinator: Identity, seat: number): Promise<void> {
  await until(set.members[seat - 1]!, 'ready', set.version);
  for (let attempt = 0; attempt < 5; attempt++) {
    const message = randomBytes(32);
    const signed = await new Coordinator(set, coordinator, 10_000).sign(message, { kind: 'manual' }, undefined, { prefer: [seat] }); // prettier-ignore
    if (!schnorr.verify(signed.signature, message, hex.decode(set.groupKey!)))
      throw new Error(`set ${set.version} signed something that does not verify`);
    if (signed.signers.includes(seat)) return;
  }
  throw new Error(`set ${set.version} signed five times without guardian ${seat}`);
}

interface World {
  dir: string;
  relays: Relay[];
  procs: Map<string, Proc>;
  start(key: string, args: string[], slot: number): void;
  target(seat: number, identityKey: string): PublicTarget;
}

async function network(): Promise<World & { set1: GuardianSet }> {
  const dir = mkdtempSync(join(tmpdir(), 'unit-bench-membership-'));
  const [urlBase, listenBase] = [await freePorts(4), await freePorts(4)];
  await cli(['dkg', '--dir', dir, '--n', '3', '--t', '2', '--base-port', `${urlBase}`]);
  const relays = [0, 1, 2, 3].map((i) => new Relay({ port: urlBase + i, target: listenBase + i }));
  for (const r of relays) {
    r.delayMs = DELAY_MS;
    await r.listen();
  }
  const procs = new Map<string, Proc>();
  const world: World = {
    dir,
    relays,
    procs,
    start: (key, args, slot) => {
      const flags = ['--port', `${listenBase + slot}`, '--policy', 'approve-all'];
      procs.set(key, run(CLI, ['start', ...args, ...flags], { env }));
    },
    target: (seat, identityKey) => ({
      url: `https://127.0.0.1:${urlBase + seat - 1}`,
      identityKey,
    }),
  };
  const set1 = readSet(dir);
  for (const m of set1.members) world.start(`g${m.id}`, ['--id', `${m.id}`, '--dir', join(dir, `guardian-${m.id}`)], m.id - 1); // prettier-ignore
  await Promise.all(set1.members.map((m) => until(m, 'ready')));
  return { ...world, set1 };
}

/** Seat 3 goes to a newcomer made by `guardian init`; ms from `guardian reshare` to a working set. */
async function reshare(w: World, set1: GuardianSet, coordinator: Identity) {
  const newDir = join(w.dir, 'newcomer');
  const out = await cli(['init', '--dir', newDir, '--url', w.target(4, '').url, '--name', 'newcomer']); // prettier-ignore
  const part = out.trim().split('\n').at(-1)!;
  const partFile = join(w.dir, 'newcomer.json');
  writeFileSync(partFile, part);
  w.start('newcomer', ['--dir', newDir], 3);
  const newcomer = w.target(4, (JSON.parse(part) as { identityKey: string }).identityKey);
  await until(newcomer, 'waiting');
  // Seat 3's URL is the newcomer's relay from now on.
  const roster = join(w.dir, 'reshare-roster.json');
  await cli(['reshare', '--dir', w.dir, '--roster', roster, '--replace', '3', '--with', partFile], 1); // prettier-ignore
  for (const d of [1, 2].map((id) => join(w.dir, `guardian-${id}`)).concat(newDir))
    await cli(['approve', '--kind', 'reshare', '--dir', d, '--roster', roster, '--yes']);
  const started = performance.now();
  await cli(['reshare', '--dir', w.dir, '--roster', roster]);
  const set2 = readSet(w.dir, set1);
  await signsWith(set2, coordinator, 3);
  const ms = performance.now() - started;
  if (set2.groupKey !== set1.groupKey) throw new Error('the resharing changed the group key');
  await kill9(w.procs.get('g3')!);
  return { ms, set2 };
}

/** Guardian 1 loses every file but its identity; ms from `guardian repair` to a working set. */
async function repair(w: World, set2: GuardianSet, coordinator: Identity) {
  const g1 = join(w.dir, 'guardian-1');
  await kill9(w.procs.get('g1')!);
  const keep = ['identity.json', 'guardian.json'];
  const backup = join(w.dir, 'backup-1');
  mkdirSync(backup);
  for (const f of keep) copyFileSync(join(g1, f), join(backup, f));
  rmSync(g1, { recursive: true });
  mkdirSync(g1, { mode: 0o700 });
  for (const f of keep) copyFileSync(join(backup, f), join(g1, f));
  w.start('g1', ['--dir', g1], 0);
  await until(set2.members[0]!, 'waiting');
  const roster = join(w.dir, 'repair-roster.json');
  await cli(['repair', '--dir', w.dir, '--member', '1', '--roster', roster], 1);
  for (const d of [join(w.dir, 'guardian-2'), join(w.dir, 'newcomer')])
    await cli(['approve', '--kind', 'repair', '--dir', d, '--roster', roster, '--yes']);
  const started = performance.now();
  await cli(['repair', '--dir', w.dir, '--member', '1', '--roster', roster]);
  const set3 = readSet(w.dir, set2);
  await signsWith(set3, coordinator, 1);
  const ms = performance.now() - started;
  if (set3.groupKey !== set2.groupKey) throw new Error('the repair changed the group key');
  return ms;
}

export async function membershipFigures(): Promise<{ figures: Figure[]; lines: string[] }> {
  const w = await network();
  try {
    const coordinator = loadIdentity(join(w.dir, 'coordinator', 'identity.json'));
    const reshared = await reshare(w, w.set1, coordinator);
    const repaired = await repair(w, reshared.set2, coordinator);
    const figure = (name: string, value: number, max: number): Figure => ({
      name: `${name}, 2-of-3, ${DELAY_MS} ms one-way: command to a working set`,
      value,
      goal: { max },
      noise: 0,
      unit: ' ms',
    });
    return {
      figures: [
        figure('Resharing to a new member', reshared.ms, RESHARE_GOAL_MS),
        figure('Repairing a lost share', repaired, REPAIR_GOAL_MS),
      ],
      lines: [
        `Membership with the same group key (2-of-3, ${DELAY_MS} ms one-way, TLS): resharing seat 3 ` +
          `to a new member ${reshared.ms.toFixed(0)} ms, repairing guardian 1's lost share ` +
          `${repaired.toFixed(0)} ms (each from the command to a verified signature that member made)`,
      ],
    };
  } finally {
    await Promise.all([...w.procs.values()].map((p) => (p.child.exitCode === null ? kill9(p) : null))); // prettier-ignore
    await Promise.all(w.relays.map((r) => r.close()));
    rmSync(w.dir, { recursive: true, force: true });
  }
}

await runAlone(import.meta.url, membershipFigures);

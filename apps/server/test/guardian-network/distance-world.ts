// The distance test's world: three guardians as three organisations would run them, each on a
// network stack of its own (namespaces.ts), made by its own `guardian init` in its own directory
// there, and a 2-of-3 key made by the DKG among them over the network (`guardian dkg --members`
// from a coordinator directory holding no share), every link TLS (the default: the plain-HTTP
// flag is removed from every process's environment). The app and its devnet run in the root
// namespace. Each member is reached only through a relay (packages/guardian-net/test/relay.ts)
// listening on its link's root-side address, which adds the delay and loss on every message to
// it, from the app and from the other members; its reads of the app's chain and price pass a
// relay of their own on that address. A member can be partitioned (its link down), stall (its
// relay swallows every byte) or be replaced by the fixture that sends bad signature shares.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { hex } from '@scure/base';
import {
  HEALTH_MAX_BYTES,
  readPublic,
  verifySet,
  type GuardianSet,
  type PublicTarget,
} from '@unit/guardian-net';
import type { Harness } from '../guardian/harness';
import { startTestApp, type RunningApp } from '../support';
import { appHarness, quorumAt } from './signer-harness';
import { makePlaces, type Place, type Places } from './namespaces';
import { Relay } from '../../../../packages/guardian-net/test/relay';
import {
  CLI,
  EVIL,
  freePorts,
  kill9,
  run,
  type Proc,
} from '../../../../packages/guardian-net/test/harness';

const PLAIN_ENV = 'UNIT_GUARDIAN_INSECURE_PLAIN_HTTP';

export interface Distance {
  /** one-way delay on every message to a member, in each direction */
  delayMs: number;
  /** the share of chunks lost once (each arrives a retransmission time-out later) */
  loss: number;
}

export interface Member {
  id: number;
  place: Place;
  dir: string;
  /** the URL in the set: its relay */
  target: PublicTarget;
  /** the line `guardian init` printed, which its operator hands the coordinator */
  part: string;
  relay: Relay;
  appRelay: Relay;
  proc?: Proc;
  /** whether its process is the fixture that sends bad shares */
  evil?: boolean;
}

export interface DistanceWorld {
  app: RunningApp;
  set: GuardianSet;
  h: Harness;
  members: Member[];
  /** the coordinator's network directory (GUARDIAN_DIR): its identity and the public set only */
  coordinatorDir: string;
  /** why the members share loopback, or null when each has its own namespace */
  fallback: string | null;
  partition(id: number): void;
  stall(id: number): void;
  /** guardian `id` replaced by the fixture that corrupts its signature shares */
  badShares(id: number): Promise<void>;
  /** guardian `id` honest and reachable again */
  heal(id: number): Promise<void>;
  close(): Promise<void>;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Until `m` answers /v1/health over TLS pinned to its identity key, as `ok(health)` wants. */
async function healthy(m: Member, ok: (h: Record<string, unknown>) => boolean): Promise<void> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const read = await readPublic(m.target, '/v1/health', { timeoutMs: 5_000, maxBytes: HEALTH_MAX_BYTES }).catch(() => null); // prettier-ignore
    if (read?.ok && ok(read.body as Record<string, unknown>)) return;
    if (m.proc?.child.exitCode !== null && m.proc?.child.exitCode !== undefined)
      throw new Error(`guardian ${m.id} exited:\n${m.proc.output()}`);
    if (Date.now() > deadline)
      throw new Error(`guardian ${m.id} not ready in 60 s:\n${m.proc?.output() ?? ''}`);
    await sleep(200);
  }
}

const lastLine = (p: Proc) => p.output().trim().split('\n').at(-1)!;

async function exitedOk(p: Proc, what: string): Promise<void> {
  if ((await p.exited) !== 0) throw new Error(`${what} failed:\n${p.output()}`);
}

/**
 * Each member's directory made by `guardian init` in its own place; its relays listening (each
 * also in `relays` as soon as it is made, so a failure part way closes them).
 */
async function makeMembers(
  root: string,
  places: Places,
  env: NodeJS.ProcessEnv,
  d: Distance,
  relays: Relay[],
) {
  const listenBase = await freePorts(places.places.length);
  return Promise.all(
    places.places.map(async (place, i): Promise<Member> => {
      const id = i + 1;
      const relay = new Relay({ host: place.rootHost, targetHost: place.host, target: listenBase + i, seed: id }); // prettier-ignore
      const appRelay = new Relay({ host: place.rootHost, seed: 100 + id });
      relays.push(relay, appRelay);
      relay.delayMs = d.delayMs;
      relay.loss = d.loss;
      const port = await relay.listen();
      const dir = join(root, `org-${id}`);
      const url = `https://${place.rootHost}:${port}`;
      const init = run(CLI, ['init', '--dir', dir, '--url', url, '--name', `org-${id}`], { wrap: place.wrap, env }); // prettier-ignore
      await exitedOk(init, `guardian init of org-${id}`);
      const part = lastLine(init);
      const { identityKey } = JSON.parse(part) as { identityKey: string };
      await appRelay.listen();
      return { id, place, dir, target: { url, identityKey }, part, relay, appRelay };
    }),
  );
}

/** A `--policy vault` guardian's reads of the app through `m`'s relay: chain, facts, price. */
function readsOf(m: Member): string[] {
  const origin = `http://${m.place.rootHost}:${m.appRelay.port}`;
  return [
    ...['--chain', `${origin}/esplora`, '--app', origin, '--network', 'devnet'],
    ...['--feeds', `devnet@${origin}`, '--price-tick', '500'],
  ];
}

const where = (m: Member) => ['--dir', m.dir, '--host', m.place.host, '--port', `${m.relay.target}`]; // prettier-ignore

/** The first DKG among the running, waiting members, from a coordinator directory of its own. */
async function firstDkg(
  root: string,
  members: Member[],
  env: NodeJS.ProcessEnv,
  coordinator: string[],
) {
  const net = join(root, 'coordinator');
  for (const m of members) m.proc = run(CLI, ['start', ...where(m), ...coordinator], { wrap: m.place.wrap, env }); // prettier-ignore
  await Promise.all(members.map((m) => healthy(m, (h) => h.state === 'waiting')));
  const file = join(root, 'members.txt');
  writeFileSync(file, members.map((m) => m.part).join('\n') + '\n');
  const dkgArgs = ['dkg', '--dir', net, '--members', file, '--t', '2'];
  // As three organisations would: the first run stops before any round and writes the roster,
  // each operator approves it on its own guardian's directory, then the same command runs it.
  const unapproved = run(CLI, dkgArgs, { env });
  if ((await unapproved.exited) === 0) throw new Error('guardian dkg ran without any approval');
  for (const m of members) {
    const args = ['approve', '--kind', 'dkg', '--dir', m.dir, '--roster', join(net, 'roster.json'), '--yes']; // prettier-ignore
    await exitedOk(run(CLI, args, { env }), `guardian approve of ${m.dir}`);
  }
  await exitedOk(run(CLI, dkgArgs, { env }), 'guardian dkg');
  await Promise.all(members.map((m) => healthy(m, (h) => h.state === 'ready')));
  return { net, set: verifySet(JSON.parse(readFileSync(join(net, 'guardian-set.json'), 'utf8'))) };
}

export async function startDistanceWorld(d: Distance): Promise<DistanceWorld> {
  const before = process.env[PLAIN_ENV];
  delete process.env[PLAIN_ENV]; // the app's links too: TLS
  const env = { ...process.env };
  const root = mkdtempSync(join(tmpdir(), 'guardian-distance-'));
  const places = makePlaces(3);
  let members: Member[] = [];
  const relays: Relay[] = [];
  let app: RunningApp | undefined;
  const stop = async (m: Member) => {
    if (m.proc) await kill9(m.proc);
    m.proc = undefined;
  };
  const close = async () => {
    await Promise.all(members.map(stop));
    await Promise.all(relays.map((r) => r.close()));
    await app?.stop();
    places.close();
    rmSync(root, { recursive: true, force: true });
    if (before !== undefined) process.env[PLAIN_ENV] = before;
  };
  try {
    members = await makeMembers(root, places, env, d, relays);
    const key = run(CLI, ['coordinator-key', '--dir', join(root, 'coordinator')], { env });
    await exitedOk(key, 'guardian coordinator-key');
    const coordinator = ['--coordinator', key.output().trim()];
    const { net, set } = await firstDkg(root, members, env, coordinator);
    // The app on the set, then each guardian again, with the vault policy reading the app.
    // One round trip over preprocessed commitments (the default, named: the bad-share case's
    // assertions are about which members a session takes from the pool).
    app = await startTestApp({ GUARDIAN_NETWORK: 'external', GUARDIAN_DIR: net, GUARDIAN_ONE_ROUND: 'on' }); // prettier-ignore
    const unit = app;
    for (const m of members) m.appRelay.target = Number(new URL(unit.url).port);
    const fresh = (h: Record<string, unknown>) => h.state === 'ready' && h.priceFresh === true;
    const start = async (m: Member, evil: boolean) => {
      await stop(m);
      const args = evil
        ? [...where(m), '--mode', 'bad-share', ...readsOf(m).slice(-4)]
        : ['start', ...where(m), ...coordinator, '--policy', 'vault', ...readsOf(m)];
      m.proc = run(evil ? EVIL : CLI, args, { wrap: m.place.wrap, env });
      m.evil = evil;
      await healthy(m, fresh);
    };
    await Promise.all(members.map((m) => start(m, false)));
    await quorumAt(unit);
    await unit.oracle.setPrice(9_500_000);
    const member = (id: number) => members[id - 1]!;
    return {
      app: unit,
      set,
      h: appHarness(unit, hex.decode(set.groupKey!)),
      members,
      coordinatorDir: net,
      fallback: places.fallback,
      partition: (id) => {
        if (member(id).place.link(false)) return;
        member(id).relay.cut();
        member(id).appRelay.cut();
      },
      stall: (id) => member(id).relay.stall(),
      badShares: (id) => start(member(id), true),
      heal: async (id) => {
        const m = member(id);
        m.place.link(true);
        m.relay.heal();
        m.appRelay.heal();
        if (m.evil) await start(m, false);
        await healthy(m, fresh);
      },
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}

// Distance and faults: three guardians of three organisations, each made by its own command in its
// own directory and run in a network namespace of its own (distance-world.ts: made here with
// `ip netns` and veth pairs, each member on an address the test assigned inside it, none on
// loopback), their 2-of-3 key made by the DKG among them over the network, every link TLS, and
// every message to a member delayed and now and then lost by the relay in front of it. A vault goes
// through open, deposit, borrow and liquidation (the claim signed by the group), and again with
// one member partitioned (its link down), with one stalling (it holds every connection and
// answers nothing) and with one sending bad signature shares: each request is signed by the
// other two and its transaction is valid on the devnet. Where namespaces cannot be made, the test
// says why and runs the same cases over loopback.
import { readdirSync, readFileSync, readlinkSync, statSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { guardianNetworkSchema, type Approvals } from '@unit/protocol/wire';
import { HEALTH_MAX_BYTES, readPublic } from '@unit/guardian-net';
import { getVaultByPubkey } from '../../src/store';
import { call, type TestWallet } from '../guardian/harness';
import { lastApprovals, progressRecorder } from './adversary-harness';
import { startDistanceWorld, type DistanceWorld } from './distance-world';
import { onChain, quorumAt } from './signer-harness';

const DISTANCE = { delayMs: 25, loss: 0.02 };
const HIGH_CENTS = 9_500_000;

let world: DistanceWorld;
beforeAll(async () => {
  world = await startDistanceWorld(DISTANCE);
  if (world.fallback)
    console.warn(
      `The distance test runs every member on loopback, sharing one network stack, because ${world.fallback}: ` +
        'run it as root on Linux with `ip` to give each member a namespace of its own.',
    );
}, 180_000);
afterAll(async () => {
  await world?.close();
});

/** The request through the app; its transaction checked on the devnet; the guardians' board. */
async function signed(method: string, draft: Promise<{ request: unknown }>): Promise<Approvals> {
  const { request } = await draft;
  const ctx = progressRecorder();
  const { vault_txid } = await call<{ vault_txid: string }>(world.app.guardian, method, request, ctx); // prettier-ignore
  await onChain(world.app, vault_txid);
  return lastApprovals(ctx)!;
}

const statusOf = async (w: TestWallet) =>
  (await getVaultByPubkey(world.app.store.db, w.vaultPubkey))!.status;

/** Who claims each liquidated vault: his own vault opened in the first lifecycle. */
let bob: TestWallet | undefined;

/**
 * At the high price, a vault opened, topped up and borrowed against; the price falls under its
 * threshold, the app liquidates it and Bob's claim is signed by the group. Every request's board.
 */
async function lifecycle(tag: string): Promise<Approvals[]> {
  const { app, h } = world;
  // At the high price whatever a case before this one left.
  await app.oracle.setPrice(HIGH_CENTS);
  await quorumAt(app, HIGH_CENTS);
  const alice = await h.wallet(`alice-${tag}`);
  const opened: Approvals[] = [];
  if (!bob) {
    const claimant = await h.wallet('bob');
    opened.push(await signed('vault.open', claimant.open(5_000_000n, 10_000n)));
    bob = claimant;
  }
  const boards = [
    await signed('vault.open', alice.open(1_000_000n, 30_000n)),
    await signed('vault.deposit', alice.deposit(50_000n)),
    await signed('vault.borrow', alice.borrow(29_000n)),
    ...opened,
  ];
  const claimed = (await getVaultByPubkey(app.store.db, alice.vaultPubkey))!;
  const low = claimed.threshold_cents - 10_000;
  await app.oracle.setPrice(low);
  await quorumAt(app, low);
  await expect.poll(() => statusOf(alice), { timeout: 20_000 }).toBe('liquidated');
  boards.push(await signed('vault.repossess', bob.repossess(alice.vaultPubkey, claimed.vault_id)));
  expect(await statusOf(alice)).not.toBe('liquidated');
  return boards;
}

/** The states and reasons guardian `id` had on each board. */
const seen = (boards: Approvals[], id: number) => boards.map((b) => b.guardians[id - 1]!);

/** The address of every listening TCP socket of `pid`'s network namespace (IPv6 ones as hex). */
function listening(pid: number): string[] {
  return ['tcp', 'tcp6'].flatMap((table) =>
    readFileSync(`/proc/${pid}/net/${table}`, 'utf8')
      .trim()
      .split('\n')
      .slice(1)
      .map((row) => row.trim().split(/\s+/))
      .filter((cols) => cols[3] === '0A')
      .map((cols) => {
        const address = cols[1]!.split(':')[0]!;
        if (table === 'tcp6') return `ipv6 ${address}`;
        return [...Buffer.from(address, 'hex').reverse()].join('.');
      }),
  );
}

const signingShare = (dir: string) =>
  (JSON.parse(readFileSync(join(dir, 'share.json'), 'utf8')) as { signingShare: string }).signingShare; // prettier-ignore

describe('guardians at a distance, each on a network stack of its own', () => {
  it('made its key by the DKG among them: each share only in its own directory', () => {
    const shares = world.members.map((m) => signingShare(m.dir));
    expect(new Set(shares).size).toBe(3);
    expect(readdirSync(world.coordinatorDir).filter((f) => f.includes('share'))).toEqual([]);
    for (const m of world.members) {
      const others = shares.filter((s) => s !== signingShare(m.dir));
      const files = readdirSync(m.dir).map((f) => join(m.dir, f)).filter((f) => statSync(f).isFile()); // prettier-ignore
      for (const f of files) for (const s of others) expect(readFileSync(f, 'latin1')).not.toContain(s); // prettier-ignore
    }
  });

  it('each member runs in its own namespace, listening only on its own address there', (ctx) => {
    if (world.fallback) ctx.skip();
    const ours = readlinkSync('/proc/self/ns/net');
    const stacks = world.members.map((m) => readlinkSync(`/proc/${m.proc!.child.pid}/ns/net`));
    expect(new Set([ours, ...stacks]).size).toBe(4);
    for (const m of world.members) {
      expect(m.place.host).not.toMatch(/^127\./);
      expect(listening(m.proc!.child.pid!)).toEqual([m.place.host]);
      const lo = execFileSync('ip', ['-n', m.place.ns!, '-o', 'link', 'show', 'lo']).toString();
      expect(lo).not.toMatch(/[<,]UP[,>]/);
      // The set names it at its link's root-side address, where its relay listens, over TLS.
      expect(world.set.members[m.id - 1]!.url).toBe(`https://${m.place.rootHost}:${m.relay.port}`);
    }
  });

  it('runs a vault through open, deposit, borrow and liquidation with delay and loss on every link', async () => {
    const boards = await lifecycle('h');
    for (const b of boards) expect(b.approved).toBeGreaterThanOrEqual(2);
    // The relays carried the traffic, and lost some of it.
    const chunks = world.members.reduce((n, m) => n + m.relay.counts.chunks, 0);
    expect(chunks).toBeGreaterThan(100);
    expect(world.members.reduce((n, m) => n + m.relay.counts.lost, 0)).toBeGreaterThan(0);
  }, 120_000);

  it('again with member 3 partitioned: the other two sign every request', async () => {
    world.partition(3);
    try {
      // Cut off: its health is not read any more.
      const m = world.members[2]!;
      const read = await readPublic(m.target, '/v1/health', { timeoutMs: 3_000, maxBytes: HEALTH_MAX_BYTES }).catch(() => null); // prettier-ignore
      expect(read).toBeNull();
      const boards = await lifecycle('p');
      for (const g of seen(boards, 3)) expect(g.state).not.toBe('approved');
      for (const id of [1, 2]) for (const g of seen(boards, id)) expect(g.state).toBe('approved');
    } finally {
      await world.heal(3);
    }
  }, 120_000);

  it('again with member 1 stalling: it costs time, never the request', async () => {
    world.stall(1);
    try {
      const boards = await lifecycle('s');
      for (const g of seen(boards, 1)) expect(g.state).not.toBe('approved');
      for (const id of [2, 3]) for (const g of seen(boards, id)) expect(g.state).toBe('approved');
    } finally {
      await world.heal(1);
    }
  }, 120_000);

  it('again with member 2 sending bad shares: excluded for the bad share whenever asked, the others sign', async () => {
    await world.badShares(2);
    try {
      const [first, ...after] = await lifecycle('b');
      // Every request was signed (its transaction is on the devnet) by 1 and 3.
      for (const id of [1, 3]) for (const g of seen([first!, ...after], id)) expect(g.state).toBe('approved'); // prettier-ignore
      // The first request after its restart holds member 2's commitments from before it, which it
      // burned: it is asked again by the two-round path, and 1 and 3 may sign before it is in a
      // session. Asked for a share, it is excluded for the bad share; else it approved or was not
      // needed (pending), never unreachable.
      const [once] = seen([first!], 2);
      expect(['approved', 'excluded', 'pending'], JSON.stringify(once)).toContain(once!.state);
      if (once!.state === 'excluded') expect(once!.reason).toMatch(/bad signature share/);
      // Its fresh commitments are pooled from then on, and a session takes the t lowest ids among
      // the guardians ready from the pool (2 among them whatever 1's pool holds): each later
      // request asks member 2 for a share in its first session; it is excluded, named for it.
      for (const g of seen(after, 2)) {
        expect(g.state, JSON.stringify(g)).toBe('excluded');
        expect(g.reason).toMatch(/bad signature share/);
      }
      // /network shows the exclusion with its cause.
      const shown = guardianNetworkSchema.parse(await (await fetch(`${world.app.url}/api/network`)).json()); // prettier-ignore
      expect(shown.recent_exclusions.map((x) => [x.guardian_id, x.cause])).toContainEqual([2, 'bad-share']); // prettier-ignore
    } finally {
      await world.heal(2);
    }
  }, 120_000);
});

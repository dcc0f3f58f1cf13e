// Several servers on one PostgreSQL: two instances of the real app (buildApp twice on one
// schema, as behind a load balancer). A vault opened through one is read through the other; the
// singleton jobs run in one instance and move to the other when it dies; every price point and
// every liquidation is recorded once; each instance's event stream carries the other's events.
// Runs when TEST_DATABASE_URL is set, like the other PostgreSQL suites.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { sql } from 'kysely';
import type { VaultDto } from '@unit/protocol';
import type { RunningApp } from '../support';
import { ALICE, BOB, signedSpend } from '../devnet/fixtures';
import {
  dropSchema,
  eventually,
  newSchema,
  openEvents,
  openVault,
  pgUrl,
  startInstance,
} from './instances';

const JOBS = [
  'block-watcher',
  'devnet-miner',
  'guardian-recovery',
  'liquidation-sweep',
  'oracle-tick',
  'telegram-outbox',
  'term-settlement',
];
const TICK_MS = 400;

describe.runIf(pgUrl)('two instances on one PostgreSQL', () => {
  const schema = newSchema('cluster');
  let a: RunningApp;
  let b: RunningApp;
  const stopped = new Set<RunningApp>();

  beforeAll(async () => {
    // Started together: first-start work (migrations, keys, the devnet's genesis) runs once.
    [a, b] = await Promise.all([
      startInstance(schema, { PRICE_TICK: String(TICK_MS) }),
      startInstance(schema, { PRICE_TICK: String(TICK_MS) }),
    ]);
  }, 60_000);

  afterAll(async () => {
    for (const unit of [a, b]) if (unit && !stopped.has(unit)) await unit.stop();
    await dropSchema(schema);
  });

  const running = (unit: RunningApp) => unit.cluster.leadership.running().sort();

  it('shares one devnet and one guardian key', () => {
    expect(a.devnet!.unitRuneId).toBe(b.devnet!.unitRuneId);
    expect(a.keys.guardPubkey).toBe(b.keys.guardPubkey);
  });

  it('runs each singleton job in exactly one instance', async () => {
    await eventually(() => running(a).length + running(b).length === JOBS.length);
    expect([...running(a), ...running(b)].sort()).toEqual(JOBS);
  });

  it('records one price point per tick, and both instances serve the latest', async () => {
    const count = async () =>
      Number(
        (await sql<{ n: number }>`select count(*) as n from price_points`.execute(a.store.db))
          .rows[0]!.n,
      );
    const before = await count();
    const windowMs = 10 * TICK_MS;
    await new Promise((resolve) => setTimeout(resolve, windowMs));
    const added = (await count()) - before;
    // One ticking instance adds at most one point per interval; two would add about twice that.
    expect(added).toBeGreaterThanOrEqual(2);
    expect(added).toBeLessThanOrEqual(windowMs / TICK_MS + 1);
    // The follower's price follows the leader's ticks (the bus), not its own.
    const latest = (
      await sql<{ price_cents: number; timestamp: number }>`
        select price_cents, timestamp from price_points order by timestamp desc limit 1`.execute(
        a.store.db,
      )
    ).rows[0]!;
    await eventually(
      () =>
        a.oracle.price().timestamp >= latest.timestamp &&
        b.oracle.price().timestamp >= latest.timestamp,
    );
  });

  it('accepts one of two spends of one output, sent to the two instances at once', async () => {
    // The devnet's chain is in the database; its writes take a cluster-wide lock, so the second
    // spend sees the first and is refused as a conflict, on whichever instance it arrives.
    for (let round = 0; round < 4; round++) {
      const funding = await a.devnet!.fund(ALICE.address, 50_000n);
      const vout = (await a.devnet!.getTx(funding))!.outputs.findIndex(
        (o) => o.address === ALICE.address,
      );
      const spend = (to: Uint8Array, amount: bigint) =>
        signedSpend([{ txid: funding, vout, value: 50_000n, key: ALICE }], [{ script: to, amount }])
          .hex;
      const results = await Promise.allSettled([
        a.devnet!.broadcast(spend(BOB.script, 40_000n)),
        b.devnet!.broadcast(spend(ALICE.script, 41_000n)),
      ]);
      expect(results.map((r) => r.status).sort()).toEqual(['fulfilled', 'rejected']);
    }
    await b.devnet!.mine(1);
  });

  it('opens a vault through one instance and reads it through the other', async () => {
    const stream = await openEvents(b);
    try {
      const { vaultId, vaultPubkey } = await openVault(a, 1_000_000n, 10_000n);
      const res = await fetch(`${b.url}/api/vaults/by-pubkey/${vaultPubkey}`);
      expect(res.status).toBe(200);
      const vault = (await res.json()) as VaultDto;
      expect(vault).toMatchObject({
        vault_id: vaultId,
        btc_locked: 1_000_000,
        unit_borrowed: 10_000,
      });
      // B's browsers hear of the vault A changed, and of the block A mined.
      await stream.next((e) => e.type === 'vault' && e.data.vault_id === vaultId);
      await stream.next((e) => e.type === 'block');
    } finally {
      stream.close();
    }
  }, 30_000);

  it('records one liquidation, whichever instance hears the price', async () => {
    const { vaultId } = await openVault(b, 1_000_000n, 20_000n);
    const streams = await Promise.all([openEvents(a), openEvents(b)]);
    try {
      // 0.01 BTC backing 200 UNIT: liquidated at or under $27,000. Set through the follower or the
      // leader alike; both streams carry the price and the liquidation.
      const res = await fetch(`${a.url}/api/devnet/price`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ usd: 20_000 }),
      });
      expect(res.status).toBe(200);
      for (const stream of streams) {
        await stream.next((e) => e.type === 'price' && e.data.USD === 20_000);
        await stream.next(
          (e) => e.type === 'vault' && e.data.vault_id === vaultId && e.data.kind === 'liquidation',
        );
      }
      // Later ticks sweep again at prices under the threshold: still one `l`.
      await new Promise((resolve) => setTimeout(resolve, 3 * TICK_MS));
      const records = await sql<{ n: number }>`
        select count(*) as n from vault_history where vault_id = ${vaultId} and action = 'l'`.execute(
        b.store.db,
      );
      expect(Number(records.rows[0]!.n)).toBe(1);
      const vault = (await (
        await fetch(
          `${b.url}/api/vaults/by-pubkey/${(await b.store.db.selectFrom('vaults').select('vault_pubkey').where('vault_id', '=', vaultId).executeTakeFirstOrThrow()).vault_pubkey}`,
        )
      ).json()) as VaultDto;
      expect(vault.status).toBe('liquidated');
    } finally {
      for (const stream of streams) stream.close();
    }
  }, 30_000);

  it('stops the jobs of an instance whose lock connection is cut, and one instance takes each', async () => {
    const holder = running(a).includes('oracle-tick') ? a : b;
    // Passes through: it only records that the holder stopped its ticks (it may take them back).
    const ticksStopped = vi.spyOn(holder.oracle, 'stop');
    // What a crash or a network cut looks like to PostgreSQL: the session ends, its locks go.
    const key = `${schema}:unit-job:oracle-tick`;
    const cut = await sql<{ ok: boolean }>`
      select pg_terminate_backend(pid) as ok from pg_locks
      where locktype = 'advisory' and granted and objsubid = 1
        and objid = (hashtext(${key})::bigint & 4294967295)::text::oid`.execute(a.store.db);
    expect(cut.rows.map((r) => r.ok)).toEqual([true]);
    await eventually(() => ticksStopped.mock.calls.length > 0, 5_000);
    ticksStopped.mockRestore();
    // Both campaign again; each job ends up in exactly one of them.
    await eventually(() => running(a).length + running(b).length === JOBS.length, 10_000);
    expect([...running(a), ...running(b)].sort()).toEqual(JOBS);
  }, 30_000);

  it('hears the other instance again after its LISTEN connection is cut', async () => {
    const stream = await openEvents(b);
    try {
      const cut = await sql<{ ok: boolean }>`
        select pg_terminate_backend(pid) as ok from pg_stat_activity
        where query = ${`listen "unit_live:${schema}"`}`.execute(a.store.db);
      expect(cut.rows.length).toBe(2);
      // Both reconnect within their retry (200 ms here); events sent meanwhile are lost.
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      await fetch(`${a.url}/api/devnet/price`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ usd: 12_345.67 }),
      });
      await stream.next((e) => e.type === 'price' && e.data.USD === 12_345.67);
    } finally {
      stream.close();
    }
  }, 30_000);

  it('moves every job to the other instance when the holder dies', async () => {
    const holder = running(a).includes('oracle-tick') ? a : b;
    const survivor = holder === a ? b : a;
    await holder.stop();
    stopped.add(holder);
    await eventually(() => running(survivor).length === JOBS.length, 10_000);
    expect(running(survivor)).toEqual(JOBS);
    // The survivor ticks now: new points arrive and its stream carries them.
    const stream = await openEvents(survivor);
    try {
      const since = survivor.oracle.price().timestamp;
      await stream.next((e) => e.type === 'price' && e.data.time > since, 5 * TICK_MS);
    } finally {
      stream.close();
    }
  }, 30_000);
});

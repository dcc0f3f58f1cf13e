// Guardian requests across instances on one PostgreSQL: an instance starting (or the leader's
// periodic recovery) settles only requests whose instance is gone, never one a live instance is
// working on; and two instances never hand one treasury output to two requests, the output becoming
// one request's by a conditional write in the database.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { randomBytes } from 'node:crypto';
import { errorCodeOf } from '@unit/protocol';
import type { RunningApp } from '../support';
import { getGuardianRequest, getVaultByPubkey } from '../../src/store';
import { UNOWNED_REQUEST_GRACE_SECONDS } from '../../src/cosign/recover';
import {
  dropSchema,
  eventually,
  newSchema,
  pgUrl,
  prepareBorrow,
  prepareOpen,
  startInstance,
  type VaultOwner,
} from './instances';

const state = async (unit: RunningApp, nonce: string) =>
  (await getGuardianRequest(unit.store.db, nonce))?.state;

describe.runIf(pgUrl)('guardian requests across instances', () => {
  const schema = newSchema('guardian_multi');
  const running: RunningApp[] = [];
  let a: RunningApp;

  beforeAll(async () => {
    a = await startInstance(schema, {}, { recoveryIntervalMs: 200 });
    running.push(a);
  }, 60_000);

  afterAll(async () => {
    for (const unit of running) await unit.stop();
    await dropSchema(schema);
  });

  it('leaves a request in flight on one instance alone when another instance starts', async () => {
    const open = await prepareOpen(a, 1_000_000n, 50_000n);
    // Holding the devnet's cluster-wide write lock stops the request at its broadcast, co-signed:
    // exactly what a restart's recovery would rebroadcast and commit, were it left behind.
    const blocker = new pg.Client({ connectionString: pgUrl, options: `-c search_path=${schema}` });
    await blocker.connect();
    await blocker.query(
      `select pg_advisory_lock(hashtext(current_schema() || ':unit-lock:devnet'))`,
    );
    let result: Promise<{ vaultId: string }> | undefined;
    try {
      result = open.submit();
      await eventually(async () => (await state(a, open.nonce)) === 'cosigned');

      const b = await startInstance(schema, {}, { recoveryIntervalMs: 200 });
      running.push(b);
      expect(await b.guardian.recover()).toEqual({ committed: [], rebroadcast: [], failed: [] });
      // Whichever instance leads the periodic recovery has had rounds meanwhile.
      await new Promise((resolve) => setTimeout(resolve, 600));
      expect(await state(a, open.nonce)).toBe('cosigned');
    } finally {
      await blocker.query(
        `select pg_advisory_unlock(hashtext(current_schema() || ':unit-lock:devnet'))`,
      );
      await blocker.end();
    }
    const { vaultId } = await result;
    open.close();
    expect(await getGuardianRequest(a.store.db, open.nonce)).toMatchObject({
      state: 'broadcast',
      error: null,
    });
    expect((await getVaultByPubkey(a.store.db, open.vaultPubkey))?.vault_id).toBe(vaultId);
  }, 60_000);

  it('settles, by the leader, a request whose instance is gone', async () => {
    const nonce = randomBytes(16).toString('hex');
    const now = Math.floor(Date.now() / 1000);
    await a.store.db
      .insertInto('guardian_requests')
      .values({
        nonce,
        method: 'vault.deposit',
        vault_id: null,
        vault_pubkey: '22'.repeat(32),
        state: 'validated',
        // An instance id no running instance holds: a server that stopped mid-request.
        instance_id: 'stopped-instance',
        expires_at: now + 300,
        created_at: now,
        updated_at: now,
      })
      .execute();
    await eventually(async () => (await state(a, nonce)) === 'failed', 5_000);
    expect((await getGuardianRequest(a.store.db, nonce))?.error).toBe('interrupted by restart');
  });

  it('frees, by the leader, the locks of an instance that is gone, never those of a live one', async () => {
    const now = Math.floor(Date.now() / 1000);
    const lock = (key: string, instance: string) =>
      a.store.db
        .insertInto('guardian_locks')
        // A borrow killed before its request was stored: a lock no request row points to.
        .values({
          lock_key: key,
          owner: `${key}:0123`,
          instance_id: instance,
          expires_at: now + 120,
        })
        .execute();
    // Whichever of the two leads the recovery, the other is a live instance it must leave alone.
    const live = running[1]!;
    await lock('vault:' + '44'.repeat(32), 'stopped-instance');
    await lock('vault:' + '55'.repeat(32), live.cluster.presence.id);
    const held = async (key: string) =>
      (await a.store.db
        .selectFrom('guardian_locks')
        .select('lock_key')
        .where('lock_key', '=', key)
        .executeTakeFirst()) !== undefined;
    // Well within the lease: only the holder's absence frees it.
    await eventually(async () => !(await held('vault:' + '44'.repeat(32))), 5_000);
    await new Promise((resolve) => setTimeout(resolve, 600));
    expect(await held('vault:' + '55'.repeat(32))).toBe(true);
  });

  it('leaves a request of a server without instance ids to it until no request could live on', async () => {
    // A server of the version before instance ids, beside this one in a rolling upgrade.
    const now = Math.floor(Date.now() / 1000);
    const legacy = (createdAt: number) => {
      const nonce = randomBytes(16).toString('hex');
      return a.store.db
        .insertInto('guardian_requests')
        .values({
          nonce,
          method: 'vault.deposit',
          vault_id: null,
          vault_pubkey: '33'.repeat(32),
          state: 'validated',
          instance_id: null,
          expires_at: createdAt + 300,
          created_at: createdAt,
          updated_at: createdAt,
        })
        .execute()
        .then(() => nonce);
    };
    const young = await legacy(now);
    const old = await legacy(now - UNOWNED_REQUEST_GRACE_SECONDS - 1);
    await eventually(async () => (await state(a, old)) === 'failed', 5_000);
    // rounds of the leader's recovery have passed the young one by
    await new Promise((resolve) => setTimeout(resolve, 600));
    expect(await state(a, young)).toBe('validated');
  });

  it('gives one treasury output to one of two opens sent to two instances at once', async () => {
    const b = running[1]!;
    for (let round = 0; round < 3; round++) {
      const first = await prepareOpen(a, 1_000_000n, 50_000n);
      // Both reservations name the same output, as when every output is named by live
      // reservations (reservations hold nothing exclusively).
      const second = await prepareOpen(b, 1_000_000n, 50_000n, first.treasury);
      const results = await Promise.allSettled([first.submit(), second.submit()]);
      first.close();
      second.close();
      expect(results.map((r) => r.status).sort()).toEqual(['fulfilled', 'rejected']);
      const refused = results.find((r) => r.status === 'rejected')!;
      // The same code as before, read from the one client's DomainError instead of its JSON text.
      expect(errorCodeOf(refused.reason)).toMatch(/^(reservation_missing|vault_changed)$/);
      const states = [await state(a, first.nonce), await state(a, second.nonce)].sort();
      // Refused cleanly: failed, not stuck in flight.
      expect(states).toEqual(['broadcast', 'failed']);
      const opened = [
        await getVaultByPubkey(a.store.db, first.vaultPubkey),
        await getVaultByPubkey(a.store.db, second.vaultPubkey),
      ].filter(Boolean);
      expect(opened).toHaveLength(1);
      expect((await a.chain.output(first.treasury.txid, first.treasury.vout))?.spent).toBe(true);
    }
  }, 120_000);

  it('gives one treasury output to one of two borrows sent to two instances at once', async () => {
    const b = running[1]!;
    const owners: VaultOwner[] = [];
    for (const via of [a, b]) {
      const open = await prepareOpen(via, 2_000_000n, 20_000n);
      await open.submit();
      open.close();
      owners.push(open.owner);
    }
    await a.devnet!.mine(1);
    for (let round = 0; round < 2; round++) {
      const debts = async () =>
        Promise.all(
          owners.map(
            async (o) => (await getVaultByPubkey(a.store.db, o.vaultPubkey))!.unit_borrowed,
          ),
        );
      const before = await debts();
      const first = await prepareBorrow(a, owners[0]!, 10_000n);
      const second = await prepareBorrow(b, owners[1]!, 10_000n, first.treasury);
      const results = await Promise.allSettled([first.submit(), second.submit()]);
      first.close();
      second.close();
      expect(results.map((r) => r.status).sort()).toEqual(['fulfilled', 'rejected']);
      const refused = results.find((r) => r.status === 'rejected')!;
      // The same code as before, read from the one client's DomainError instead of its JSON text.
      expect(errorCodeOf(refused.reason)).toMatch(/^(reservation_missing|vault_changed)$/);
      expect([await state(a, first.nonce), await state(a, second.nonce)].sort()).toEqual([
        'broadcast',
        'failed',
      ]);
      // Exactly one vault's debt grew, by the borrow.
      const after = await debts();
      const grown = after.map((d, i) => Number(d) - Number(before[i]));
      expect(grown.sort()).toEqual([0, 10_000]);
      await a.devnet!.mine(1);
    }
  }, 120_000);
});

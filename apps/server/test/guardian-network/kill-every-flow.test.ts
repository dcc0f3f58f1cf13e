// kill -9 of any one guardian of a 2-of-3 at every step of every vault flow: open,
// deposit, withdraw, borrow, repay and a repossess, each with a guardian killed while it decides,
// after its approval, after its commitment and at its share (kill-steps.ts), on one world: the real
// app coordinating three guardian processes that check every request themselves, on its devnet.
// Each request completes with the other two, its transaction valid on the chain; the guardian,
// restarted, is ready and holds no usable nonce and none given twice. The guardian killed moves
// round the set, so the one restarted last is one of the two left to sign the next request: every
// row proves the one before it caught up. On PostgreSQL too when FLOW_DATABASE_URL is set: then each
// guardian keeps its own store (replay nonces, sessions, nonce rows) in a PostgreSQL database of its
// own as well, and its rows after each kill -9 are read from there.
import { afterAll, beforeAll, describe, expect, it, onTestFailed } from 'vitest';
import { getVaultByPubkey } from '../../src/store';
import { call, type TestWallet } from '../guardian/harness';
import { guardiansSee, progressRecorder, startWorld, type World } from './adversary-harness';
import { hasSqliteStore } from './guardian-stores';
import {
  expectRestarted,
  expectSignedWithout,
  KILL_STEPS,
  sendWithKill,
  type KillStep,
} from './kill-steps';

/**
 * The flows of two sessions at every step on SQLite; on PostgreSQL (the flow run) each flow at one
 * step, the four steps spread over them: the database's part (the request's record, the vault's
 * lock, the reservation) is the same whichever step the guardian dies at.
 */
const ON_PG = process.env.FLOW_DATABASE_URL !== undefined;
const stepsOf = (all: readonly KillStep[], one: KillStep) => (ON_PG ? [one] : all);
const REPOSSESS_STEPS = stepsOf(KILL_STEPS, 'at its share');

let w: World;
let alice: TestWallet;
let bob: TestWallet;
/** One vault per repossess row, liquidated before those rows. */
const carols: { wallet: TestWallet; vaultId: string }[] = [];

beforeAll(async () => {
  // Its steps are the two-round path's (a commitment, then a share); a kill in the one round over
  // preprocessed commitments is packages/guardian-net/test/one-trip.test.ts's.
  w = await startWorld({}, { GUARDIAN_ONE_ROUND: 'off' });
  [alice, bob] = [await w.h.wallet('alice'), await w.h.wallet('bob')];
  await call(w.app.guardian, 'vault.open', (await alice.open(5_000_000n, 50_000n)).request);
  // Bob holds the UNIT that repays each repossessed vault's debt.
  await call(w.app.guardian, 'vault.open', (await bob.open(10_000_000n, 300_000n)).request);
  for (const [index] of REPOSSESS_STEPS.entries()) {
    const wallet = await w.h.wallet(`carol${index}`);
    await call(w.app.guardian, 'vault.open', (await wallet.open(1_000_000n, 59_000n)).request);
    carols.push({
      wallet,
      vaultId: (await getVaultByPubkey(w.app.store.db, wallet.vaultPubkey))!.vault_id,
    });
  }
}, 180_000);

afterAll(async () => {
  await w?.close();
});

type Request = { nonce: string };
/**
 * Each flow with the steps it is killed at. A flow of two sessions (borrow: the vault and the
 * treasury; repossess: the liquidation leaf and the treasury, on the guardians' own price) at
 * every step: its sessions interleave differently at each. The one-session flows (the vault's
 * update leaf, or the treasury's key path for an open) share one state machine, so the four steps
 * are spread over them instead of repeating it.
 */
const FLOWS: [
  method: string,
  steps: readonly KillStep[],
  draft: (n: number) => Promise<Request>,
][] = [
  [
    'vault.open',
    ['after its commitment'],
    async (n) => (await (await w.h.wallet(`opener${n}`)).open(1_000_000n, 10_000n)).request,
  ],
  ['vault.deposit', ['while it decides'], async () => (await alice.deposit(50_000n)).request],
  ['vault.withdraw', ['at its share'], async () => (await alice.withdraw(50_000n)).request],
  ['vault.repay', ['after its approval'], async () => (await alice.repay(5_000n)).request],
  [
    'vault.borrow',
    stepsOf(KILL_STEPS, 'after its approval'),
    async () => (await alice.borrow(5_000n)).request,
  ],
  [
    'vault.repossess',
    REPOSSESS_STEPS,
    async (n) => {
      const carol = carols[n]!;
      return (await bob.repossess(carol.wallet.vaultPubkey, carol.vaultId)).request;
    },
  ],
];

/** Rows run so far: row r kills guardian r mod 3 + 1, so the one killed before it must sign. */
let rows = 0;
const killedIn = (row: number) => (row % 3) + 1;

for (const [method, steps, draft] of FLOWS)
  describe(`kill -9 of one guardian during a ${method}`, () => {
    if (method === 'vault.repossess')
      it("(the price under each vault's threshold: liquidated; every guardian sees that price)", async () => {
        const point = await w.app.oracle.setPrice(7_900_000);
        await w.app.guardian.onPriceTick(point.priceCents, point.timestamp);
        for (const { wallet } of carols)
          await expect
            .poll(
              async () => (await getVaultByPubkey(w.app.store.db, wallet.vaultPubkey))!.status,
              {
                timeout: 10_000,
              },
            )
            .toBe('liquidated');
        await guardiansSee(w, [1, 2, 3], point.priceCents);
      }, 60_000);

    it.each(steps.map((step, n) => [step, n] as [KillStep, number]))(
      '%s: the other two sign it; restarted, it is ready with no nonce usable again',
      async (step, n) => {
        const id = killedIn(rows++);
        // A row that fails may leave its guardian dead or the fixture, or another one held: the
        // next row starts with three honest guardians.
        onTestFailed(async () => {
          for (const other of [1, 2, 3]) w.resume(other);
          await w.kill(id);
          await w.honest(id);
        });
        const request = await draft(n);
        const run = await sendWithKill(w, step, { id, hold: (id % 3) + 1 }, method, request);
        await expectSignedWithout(w, step, id, run);
        await expectRestarted(w, step, id, run.nonce);
      },
      90_000,
    );
  });

it('the guardian restarted last signs the next request too', async () => {
  const id = killedIn(rows - 1);
  const other = (id % 3) + 1;
  w.pause(other);
  try {
    const { request } = await alice.deposit(20_000n);
    await call(w.app.guardian, 'vault.deposit', request, progressRecorder());
    const rows = (await w.nonces(id)).filter((r) => r.session_id.startsWith(`${request.nonce}:`));
    expect(rows.map((r) => r.status)).toEqual(['spent']);
  } finally {
    w.resume(other);
  }
}, 60_000);

it.skipIf(!ON_PG)(
  "each guardian's store was its own PostgreSQL database, never a file",
  async () => {
    for (const id of [1, 2, 3]) {
      expect(hasSqliteStore(w.gdir(id))).toBe(false);
      const statuses = new Set((await w.nonces(id)).map((r) => r.status));
      expect(statuses.has('spent')).toBe(true);
    }
    // The commitment-step kills left their nonces abandoned in the killed guardians' databases.
    const all = await Promise.all([1, 2, 3].map((id) => w.nonces(id)));
    expect(all.flat().some((r) => r.status === 'abandoned')).toBe(true);
  },
);

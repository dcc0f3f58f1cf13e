// The app server coordinating a real 2-of-3 guardian network (GUARDIAN_NETWORK=external): three
// guardian processes from a real DKG, the real app on its devnet, and vault requests built the way
// the web app builds them. New vaults commit to the group key, every guardian input is signed by
// the network (BIP-340 under the group key, checked again here), step 4 reports each guardian's
// decision, one guardian down changes nothing, two down is a clean refusal that names each one.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { base64, hex } from '@scure/base';
import { schnorr } from '@noble/curves/secp256k1.js';
import { hash160 } from '@scure/btc-signer/utils.js';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { declarationOf, vaultOutput, TAPSCRIPT_LEAF_VERSION } from '@unit/bitcoin';
import {
  guardianNetworkSchema,
  progressNotificationSchema,
  type Approvals,
  type ProgressNotification,
} from '@unit/protocol/wire';
import { Address, TEST_NETWORK } from '@scure/btc-signer';
import { getGuardianRequest, getVaultByPubkey, termOf } from '../../src/store';
import type { RpcContext } from '../../src/rpc/json-rpc';
import { startTestApp, type RunningApp } from '../support';
import { readGuardian } from '../../../../packages/guardian-net/test/harness';
import { call, type Harness, type TestWallet } from '../guardian/harness';
import {
  appHarness,
  expectUpdateLeafSigned,
  onChain,
  quorumAt,
  startGuardianNetwork,
  type TestGuardianNetwork,
} from './signer-harness';
import { loadGuardianNetwork, networkSigner } from '../../src/network-client/network-signer';

/** Every vault.progress notification of one request, checked against the wire's schema. */
function progressRecorder(): RpcContext & { progress: ProgressNotification[] } {
  const progress: ProgressNotification[] = [];
  return {
    progress,
    notify: (method, params) => {
      if (method === 'vault.progress') progress.push(progressNotificationSchema.parse(params));
    },
  };
}

/**
 * The guardians' policy: their own validation, as `npm start` runs them (they read the app, so they
 * start once it is up); SIGNER_TEST_POLICY=approve-all tests the coordination alone.
 */
const POLICY = process.env.SIGNER_TEST_POLICY ?? 'vault';
const policyFlags = (url: string) => [
  // Every guardian reads the price: the app's quotes are their quorum (oracle/quorum.ts).
  ...['--feeds', `devnet@${url}`, '--price-tick', '500'],
  ...(POLICY === 'vault' ? ['--chain', `${url}/esplora`, '--app', url, '--network', 'devnet'] : []),
];

/** Under the vault policy a guardian judges a liquidation by its own price: wait until all see it. */
async function guardiansSeePrice(dir: string, atMostCents: number): Promise<void> {
  if (POLICY !== 'vault') return;
  const set = JSON.parse(readFileSync(join(dir, 'guardian-set.json'), 'utf8')) as {
    members: { url: string; identityKey: string }[];
  };
  await expect
    .poll(
      async () => {
        const seen = await Promise.all(
          set.members.map(async (m) => {
            const health = await readGuardian(m, '/v1/health', 1_000)
              .then(
                (r) =>
                  r.body as {
                    lastPrice?: { priceCents: number } | null;
                    priceFresh?: boolean;
                  },
              )
              .catch(() => null);
            return (
              health?.priceFresh === true &&
              (health.lastPrice?.priceCents ?? Infinity) <= atMostCents
            );
          }),
        );
        return seen.every(Boolean);
      },
      { timeout: 15_000, interval: 250 },
    )
    .toBe(true);
}

describe('the app server coordinates a 2-of-3 guardian network', () => {
  let network: TestGuardianNetwork;
  let unit: RunningApp;
  let h: Harness;
  let alice: TestWallet;
  let groupKey: Uint8Array;

  beforeAll(async () => {
    network = await startGuardianNetwork({ policy: POLICY, start: false });
    const set = JSON.parse(readFileSync(join(network.dir, 'guardian-set.json'), 'utf8')) as {
      groupKey: string;
    };
    groupKey = hex.decode(set.groupKey);
    unit = await startTestApp({ GUARDIAN_NETWORK: 'external', GUARDIAN_DIR: network.dir });
    await network.startAll(policyFlags(unit.url));
    h = appHarness(unit, groupKey);
    alice = await h.wallet('alice');
  }, 120_000);
  afterAll(async () => {
    await unit?.stop();
    await network?.close();
  });

  /** The vault input (0) spent its update leaf with a BIP-340 signature under the group key. */
  async function expectGroupSignature(txid: string) {
    const { tx, prevouts } = await onChain(unit, txid);
    expectUpdateLeafSigned(tx, prevouts, alice.vaultPubkey, groupKey);
  }

  const lastApprovals = (ctx: { progress: ProgressNotification[] }) =>
    ctx.progress.filter((p) => p.approvals).at(-1)?.approvals;

  /** The treasury's input spent its key path, `OP_1 <group key>`, with the group's signature. */
  async function expectTreasurySignedByGroup(txid: string, input: number) {
    const { tx, prevouts } = await onChain(unit, txid);
    expect(hex.encode(prevouts[input]!.script)).toBe(`5120${hex.encode(groupKey)}`);
    const witness = tx.getInput(input).finalScriptWitness!;
    expect(witness).toHaveLength(1);
    const sighash = tx.preimageWitnessV1(
      input,
      prevouts.map((p) => p.script),
      0,
      prevouts.map((p) => p.amount),
    );
    expect(schnorr.verify(witness[0]!, sighash, groupKey)).toBe(true);
  }

  it('serves the group key as guard_pubkey and as the treasury key', async () => {
    expect(unit.guardian.guardPubkey).toBe(hex.encode(groupKey));
    const config = (await (await fetch(`${unit.url}/api/config`)).json()) as {
      guardPubkey: string;
      treasuryPubkey: string;
      treasuryAddress: string;
    };
    expect(config.guardPubkey).toBe(hex.encode(groupKey));
    expect(config.treasuryPubkey).toBe(hex.encode(groupKey));
    const address = Address(TEST_NETWORK).encode({ type: 'tr', pubkey: groupKey });
    expect(config.treasuryAddress).toBe(address);
    expect(unit.guardian.treasuryAddress).toBe(address);
    // The devnet etched the whole UNIT premine to the group's treasury at its first start.
    const premine = (await unit.chain.unitOutputs(address)).filter((o) => !o.spent);
    expect(premine.length).toBeGreaterThan(0);
  });

  it('opens a vault whose leaves commit to the group key, its treasury input signed by the network', async () => {
    const { request } = await alice.open(1_000_000n, 50_000n);
    const ctx = progressRecorder();
    const result = await call<{ vault_txid: string }>(unit.guardian, 'vault.open', request, ctx);
    expect([...new Set(ctx.progress.map((p) => p.step))]).toEqual([2, 3, 4, 5]);
    // Step 4 shows the guardians' approvals of the treasury input as they arrive.
    const approvals = ctx.progress.filter((p) => p.approvals).map((p) => p.approvals!);
    expect(approvals[0]!.approved).toBe(0);
    expect(lastApprovals(ctx)).toMatchObject({ needed: 2, total: 3 });
    expect(lastApprovals(ctx)!.approved).toBeGreaterThanOrEqual(2);
    await expectTreasurySignedByGroup(result.vault_txid, 0);
    const row = await getVaultByPubkey(unit.store.db, alice.vaultPubkey);
    const expected = vaultOutput({
      vaultPubkey: hex.decode(alice.vaultPubkey),
      guardPubkey: groupKey,
      // One liquidation leaf per guardian oracle (oracle/network-oracles.ts).
      thresholdHash: await unit.oracle.thresholdHashes(row!.threshold_cents, row!.stamp),
      network: TEST_NETWORK,
      ...termOf(row!),
    });
    expect(expected.thresholdHashes).toHaveLength(3);
    const output = await unit.chain.output(result.vault_txid, 0);
    expect(output!.script_hex).toBe(hex.encode(expected.script));
    await onChain(unit, result.vault_txid);
  }, 60_000);

  it('borrows and repays through the network, step 4 showing "2 of 3" as they approve', async () => {
    const steps = [
      ['vault.borrow', () => alice.borrow(5_000n)],
      ['vault.repay', () => alice.repay(10_000n)],
    ] as const;
    for (const [method, draft] of steps) {
      const { request } = await draft();
      const ctx = progressRecorder();
      const result = await call<{ vault_txid: string }>(unit.guardian, method, request, ctx);
      const approvals = ctx.progress.filter((p) => p.approvals).map((p) => p.approvals!);
      expect(approvals.length).toBeGreaterThan(1);
      expect(approvals[0]!.approved).toBe(0);
      expect(lastApprovals(ctx)).toMatchObject({ needed: 2, total: 3 });
      expect(lastApprovals(ctx)!.approved).toBeGreaterThanOrEqual(2);
      expect(lastApprovals(ctx)!.guardians.map((g) => g.name)).toEqual([
        'guardian-1',
        'guardian-2',
        'guardian-3',
      ]);
      expect(ctx.progress.at(-1)!.step).toBe(5);
      await expectGroupSignature(result.vault_txid);
      // A borrow's treasury input (1) is the group's too; a repay has none.
      if (method === 'vault.borrow') await expectTreasurySignedByGroup(result.vault_txid, 1);
    }
  }, 120_000);

  it('completes with two guardians when one is killed -9', async () => {
    await network.kill(2);
    const { request } = await alice.borrow(5_000n);
    const ctx = progressRecorder();
    const result = await call<{ vault_txid: string }>(unit.guardian, 'vault.borrow', request, ctx);
    await expectGroupSignature(result.vault_txid);
    const approvals = lastApprovals(ctx)!;
    expect(approvals.approved).toBe(2);
    expect(approvals.guardians.find((g) => g.id === 2)!.state).not.toBe('approved');
  }, 120_000);

  it('refuses cleanly with two guardians down, naming each reason, and takes the request again once one is back', async () => {
    await network.kill(3);
    // Guardian 2 comes back refusing everything: one refusal and one unreachable guardian.
    await network.start(2, 'refuse-all');
    const before = await getVaultByPubkey(unit.store.db, alice.vaultPubkey);
    const { request } = await alice.repay(5_000n);
    const ctx = progressRecorder();
    const refusal = (e: unknown) => e as { code?: string; message: string };
    const error = await call(unit.guardian, 'vault.repay', request, ctx).then(() => null, refusal);
    expect(error?.code).toBe('guardians_refused');
    expect(error!.message).toBe(
      '2 of 3 guardians refused this request. ' +
        'guardian-2: this guardian refuses every request (policy refuse-all); ' +
        'guardian-3: unreachable (ECONNREFUSED)',
    );
    // The last notification carries every guardian's state; nothing is still pending.
    const last = ctx.progress.at(-1)!;
    expect(last.step).toBe(4);
    expect(last.approvals!.guardians.map((g) => [g.state, g.reason])).toEqual([
      ['approved', undefined],
      ['refused', 'this guardian refuses every request (policy refuse-all)'],
      ['unreachable', 'unreachable (ECONNREFUSED)'],
    ]);
    // /network lists both exclusions, newest first, with their causes.
    const shown = guardianNetworkSchema.parse(
      await (await fetch(`${unit.url}/api/network`)).json(),
    );
    const recent = shown.recent_exclusions.slice(0, 2).map((x) => [x.name, x.cause, x.reason]);
    expect(recent).toEqual(
      expect.arrayContaining([
        ['guardian-2', 'refused', 'this guardian refuses every request (policy refuse-all)'],
        ['guardian-3', 'unreachable', 'unreachable (ECONNREFUSED)'],
      ]),
    );
    for (const x of shown.recent_exclusions.slice(0, 2))
      expect(Math.abs(x.at - Date.now() / 1000)).toBeLessThan(60);
    // Nothing broadcast: the vault output is unspent and the store unchanged; the request failed
    // and holds nothing (the vault is not busy).
    const after = await getVaultByPubkey(unit.store.db, alice.vaultPubkey);
    expect(after).toEqual(before);
    expect((await unit.chain.output(before!.vault_txid, before!.vault_vout))!.spent).toBe(false);
    expect((await getGuardianRequest(unit.store.db, request.nonce))!.state).toBe('failed');
    const locks = await unit.store.db.selectFrom('guardian_locks').selectAll().execute();
    expect(locks).toEqual([]);

    // Guardian 3 is back: the same signed request goes through (guardians 1 and 3), unsigned again.
    await network.start(3);
    const done = await call<{ vault_txid: string }>(unit.guardian, 'vault.repay', request);
    await expectGroupSignature(done.vault_txid);
    expect((await getVaultByPubkey(unit.store.db, alice.vaultPubkey))!.vault_txid).toBe(
      done.vault_txid,
    );
  }, 120_000);

  it('repossesses a liquidated vault: the group signs its liquidation leaf, with the secret', async () => {
    // Guardian 2 still refuses everything; guardians 1 and 3 carry both sessions.
    await unit.oracle.setPrice(9_500_000);
    await quorumAt(unit, 9_500_000);
    const [carol, bob] = [await h.wallet('carol'), await h.wallet('bob')];
    await call(unit.guardian, 'vault.open', (await carol.open(1_000_000n, 59_000n)).request);
    await call(unit.guardian, 'vault.open', (await bob.open(5_000_000n, 10_000n)).request);
    const claimed = (await getVaultByPubkey(unit.store.db, carol.vaultPubkey))!;
    expect(claimed.threshold_cents).toBe(7_965_000);
    const point = await unit.oracle.setPrice(7_900_000);
    // The app's own sweep job hears the same tick and may hold the vault's lock: wait for either.
    await unit.guardian.onPriceTick(point.priceCents, point.timestamp);
    await expect
      .poll(async () => (await getVaultByPubkey(unit.store.db, carol.vaultPubkey))!.status, {
        timeout: 10_000,
      })
      .toBe('liquidated');

    await guardiansSeePrice(network.dir, claimed.threshold_cents);
    await quorumAt(unit, point.priceCents);
    const { request } = await bob.repossess(carol.vaultPubkey, claimed.vault_id);
    const ctx = progressRecorder();
    const { vault_txid } = await call<{ vault_txid: string }>(
      unit.guardian,
      'vault.repossess',
      request,
      ctx,
    );
    // Two sessions (inputs 0 and 1): a guardian counts as approved once it approved both.
    expect(lastApprovals(ctx)).toMatchObject({ approved: 2, needed: 2, total: 3 });
    const { tx, prevouts } = await onChain(unit, vault_txid);
    // <group signature> <secret> <liquidation leaf> <control block>
    const [signature, secret, leaf] = tx.getInput(0).finalScriptWitness!;
    // Revealed by a guardian whose own price allows it: it opens one of the vault's liquidation
    // leaves, one per guardian oracle (the app's own oracle secret plays no part).
    const hashes = await unit.oracle.thresholdHashes(claimed.threshold_cents, claimed.stamp);
    expect(hashes.length).toBeGreaterThanOrEqual(2);
    expect(hashes.map((h) => hex.encode(h))).toContain(hex.encode(hash160(secret!)));
    expect(hex.encode(secret!)).not.toBe(
      hex.encode(unit.oracle.revealedSecret(claimed.threshold_cents, claimed.stamp)!),
    );
    expect(hex.encode(leaf!.subarray(-33, -1))).toBe(hex.encode(groupKey));
    const sighash = tx.preimageWitnessV1(
      0,
      prevouts.map((p) => p.script),
      0,
      prevouts.map((p) => p.amount),
      -1,
      leaf!,
      TAPSCRIPT_LEAF_VERSION,
    );
    expect(schnorr.verify(signature!, sighash, groupKey)).toBe(true);
  }, 120_000);

  it('gives up after the time-out when guardians hold on without answering', async () => {
    // A signer of its own over the same set, with a 1 s time-out instead of 20 s.
    const signer = networkSigner({ ...loadGuardianNetwork(network.dir), timeoutMs: 1_000 });
    const { request } = await alice.deposit(10_000n);
    const approvals: Approvals[] = [];
    network.pause(1);
    network.pause(3);
    try {
      const started = Date.now();
      const error = await signer
        .sign({
          action: 'deposit',
          request,
          nonce: request.nonce,
          spends: declarationOf('deposit').spends,
          psbt: base64.decode(request.psbt),
          secret: null,
          onApprovals: (a) => approvals.push(a),
        })
        .then(
          () => null,
          (e: unknown) => e as { code?: string; message: string },
        );
      expect(Date.now() - started).toBeLessThan(4_000);
      expect(error?.code).toBe('guardians_refused');
      expect(error!.message).toBe(
        '3 of 3 guardians refused this request. guardian-1: no answer within 1 s; ' +
          'guardian-2: this guardian refuses every request (policy refuse-all); ' +
          'guardian-3: no answer within 1 s',
      );
      expect(approvals.at(-1)!.guardians.map((g) => g.state)).toEqual([
        'unreachable',
        'refused',
        'unreachable',
      ]);
    } finally {
      network.resume(1);
      network.resume(3);
    }
  }, 60_000);
});

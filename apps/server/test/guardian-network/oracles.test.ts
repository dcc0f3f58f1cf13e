// Each guardian is an oracle, with real guardian processes (`--policy vault`,
// each reading the app's chain and price) and the real app coordinating them on its devnet: a new
// vault commits to one liquidation leaf per guardian oracle, a guardian reveals its threshold
// secret only on its own price, a repossess spends the leaf whose secret one guardian revealed,
// and a vault output carrying a hash that is not a guardian's is refused by every guardian.
import { describe, expect, it } from 'vitest';
import { hex } from '@scure/base';
import { TEST_NETWORK, TaprootControlBlock, Transaction } from '@scure/btc-signer';
import { hash160 } from '@scure/btc-signer/utils.js';
import { classifyTapLeaf, vaultOutput } from '@unit/bitcoin';
import { oracleHashProblem, type GuardianSet, type OracleHashStatement } from '@unit/guardian-net';
import {
  DEVNET_TERM_CONFIG,
  estimateVsize,
  liquidationThresholdCents,
  sats,
  termSizing,
  unitCents,
} from '@unit/protocol';
import { getGuardianRequest, getVaultByPubkey, termOf } from '../../src/store';
import { putSetting } from '../../src/store/settings';
import type { RunningApp } from '../support';
import { readGuardian } from '../../../../packages/guardian-net/test/harness';
import { call, FEE_RATE, type Harness } from '../guardian/harness';
import { lastApprovals, progressRecorder } from './adversary-harness';
import { quorumAt, vaultPolicyWorldPerFile, type TestGuardianNetwork } from './signer-harness';

let network: TestGuardianNetwork;
let unit: RunningApp;
let h: Harness;
let set: GuardianSet;

vaultPolicyWorldPerFile((world) => ({ network, unit, h, set } = world), 120_000);

/** A GET of the app, or of a guardian over its TLS link (its certificate bound to an identity key). */
async function getJson(url: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const { origin, pathname, search } = new URL(url);
  if (origin.startsWith('https:')) {
    const answer = await readGuardian(origin, pathname + search);
    return { status: answer.status, body: answer.body as Record<string, unknown> };
  }
  const res = await fetch(url, { signal: AbortSignal.timeout(5_000) });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

/** Guardian `id`'s signed hash of (th, ts), asked of the guardian itself and checked. */
async function guardianHash(id: number, th: number, ts: number): Promise<string> {
  const { status, body } = await getJson(
    `${set.members[id - 1]!.url}/v1/oracle/hash?th=${th}&ts=${ts}`,
  );
  expect(status).toBe(200);
  expect(oracleHashProblem(set, body as unknown as OracleHashStatement, th, ts)).toBeNull();
  return body.hash as string;
}

/** Until every guardian's own price is at or under `cents`. */
async function guardiansSeePrice(cents: number): Promise<void> {
  await expect
    .poll(
      async () => {
        const seen = await Promise.all(
          set.members.map(async (m) => {
            const health = await getJson(`${m.url}/v1/health`).catch(() => null);
            const last = health?.body.lastPrice as { priceCents: number } | null | undefined;
            return health?.body.priceFresh === true && (last?.priceCents ?? Infinity) <= cents;
          }),
        );
        return seen.every(Boolean);
      },
      { timeout: 15_000, interval: 250 },
    )
    .toBe(true);
}

/**
 * The broadcast repossess pays at least the chosen rate (fee / real vsize), and the estimate the
 * web shows with the vault's three oracles covers its real vsize (with one it would fall short).
 */
async function paysTheChosenRate(tx: Transaction): Promise<void> {
  let inSats = 0n;
  for (let i = 0; i < tx.inputsLength; i++) {
    const input = tx.getInput(i);
    const spent = await unit.chain.output(hex.encode(input.txid!), input.index!);
    inSats += BigInt(spent!.value);
  }
  let outSats = 0n;
  for (let i = 0; i < tx.outputsLength; i++) outSats += tx.getOutput(i).amount!;
  expect(Number(inSats - outSats) / tx.vsize).toBeGreaterThanOrEqual(FEE_RATE);
  const estimate = (oracles: number) =>
    estimateVsize({
      action: 'repossess',
      paymentInputs: tx.inputsLength - 2,
      oracles,
      quorumCommitment: true,
      // Layout 2, as /api/config tells the web: the record's term, the vaults' deeper leaves.
      ...termSizing({ vaultTerm: DEVNET_TERM_CONFIG }),
    });
  expect(estimate(3)).toBeGreaterThanOrEqual(tx.vsize);
  expect(estimate(3)).toBeLessThanOrEqual(Math.ceil(tx.vsize * 1.05));
}

describe('each guardian is an oracle', () => {
  let carolVault: { id: string; th: number; stamp: number; hashes: string[] };

  it("opens a vault with three liquidation leaves, one per guardian's own hash", async () => {
    const carol = await h.wallet('carol');
    const { request } = await carol.open(1_000_000n, 59_000n);
    const result = await call<{ vault_txid: string }>(unit.guardian, 'vault.open', request);
    const row = (await getVaultByPubkey(unit.store.db, carol.vaultPubkey))!;
    const th = Number(row.threshold_cents);
    // Each guardian's hash, asked of it directly: not the app's word.
    const hashes = await Promise.all([1, 2, 3].map((id) => guardianHash(id, th, row.stamp)));
    expect(new Set(hashes).size).toBe(3);
    const quote = await getJson(`${unit.url}/api/oracle/quote?th=${th}&ts=${row.stamp}`);
    expect(quote.body.threshold_hashes).toEqual(hashes);
    expect(quote.body.threshold_hash).toBe(hashes[0]);
    expect(quote.body.secret).toBeNull();
    // The output on chain is the vault with those three leaves under the group key.
    const expected = vaultOutput({
      vaultPubkey: hex.decode(carol.vaultPubkey),
      guardPubkey: hex.decode(set.groupKey!),
      thresholdHash: hashes.map((x) => hex.decode(x)),
      network: TEST_NETWORK,
      ...termOf(row),
    });
    expect(expected.liquidationLeaves[0]).toHaveLength(3);
    const output = await unit.chain.output(result.vault_txid, 0);
    expect(output!.script_hex).toBe(hex.encode(expected.script));
    // The app's own single-oracle hash is not among them.
    expect(hashes).not.toContain(hex.encode(unit.oracle.thresholdHash(th, row.stamp)));
    carolVault = { id: row.vault_id, th, stamp: row.stamp, hashes };
  }, 90_000);

  it('a guardian whose own price is above the threshold refuses to reveal its secret', async () => {
    const { th, stamp } = carolVault;
    for (const m of set.members) {
      const above = await getJson(`${m.url}/v1/oracle/secret?th=${th}&ts=${stamp}`);
      expect(above.status).toBe(403);
      expect(above.body.error).toEqual({
        code: 'not-revealed',
        message: "this guardian's price $95,000.00 is above the threshold $79,650.00",
      });
      const noDebt = await getJson(`${m.url}/v1/oracle/secret?th=0&ts=${stamp}`);
      expect(noDebt.status).toBe(403);
    }
  });

  it("refuses, at every guardian, a vault output carrying a hash that is not a guardian's", async () => {
    const dave = await h.wallet('dave');
    // A compromised app serves its own hash in guardian 3's place, with guardian 3's statement: the
    // quote, the app's pipeline and the request agree; the guardians do not.
    const th = liquidationThresholdCents(sats(1_000_000n), unitCents(58_000n));
    const now = Math.floor(Date.now() / 1000);
    const genuine = await Promise.all([1, 2, 3].map((id) => guardianHash(id, th, now)));
    const foreign = hex.encode(hash160(new TextEncoder().encode('not an oracle of the set')));
    for (let ts = now; ts < now + 30; ts++) {
      const statements = await Promise.all(
        [1, 2, 3].map(
          async (id) =>
            (await getJson(`${set.members[id - 1]!.url}/v1/oracle/hash?th=${th}&ts=${ts}`)).body,
        ),
      );
      const hashes = statements.map((s) => s.hash as string);
      hashes[2] = foreign;
      await putSetting(
        unit.store.db,
        `oracle_hashes:${th}:${ts}`,
        JSON.stringify({ hashes, statements }),
      );
    }
    expect(genuine[2]).not.toBe(foreign);
    const { request } = await dave.open(1_000_000n, 58_000n);
    const ctx = progressRecorder();
    const error = await call(unit.guardian, 'vault.open', request, ctx).then(
      () => null,
      (e: unknown) => e as { code?: string; message: string },
    );
    expect(error?.code).toBe('guardians_refused');
    const reason = 'threshold hash 3 is not the one guardian-3 signed';
    // Every guardian refuses; two refusals decide it, so the third may not be in yet.
    const board = lastApprovals(ctx)!.guardians;
    const refused = board.filter((g) => g.state === 'refused');
    expect(refused.length).toBeGreaterThanOrEqual(2);
    expect(board.some((g) => g.state === 'approved')).toBe(false);
    expect(error!.message).toBe(
      `${refused.length} of 3 guardians refused this request. ` +
        refused.map((g) => `${g.name}: ${reason}`).join('; '),
    );
    expect((await getGuardianRequest(unit.store.db, request.nonce))!.state).toBe('failed');
    expect(await getVaultByPubkey(unit.store.db, dave.vaultPubkey)).toBeNull();
  }, 90_000);

  it('repossesses with the secret one guardian revealed, spending that leaf', async () => {
    const bob = await h.wallet('bob');
    await call(unit.guardian, 'vault.open', (await bob.open(5_000_000n, 10_000n)).request);
    const point = await unit.oracle.setPrice(7_900_000);
    await unit.guardian.onPriceTick(point.priceCents, point.timestamp);
    const carolPubkey = (await unit.store.db
      .selectFrom('vaults')
      .select('vault_pubkey')
      .where('vault_id', '=', carolVault.id)
      .executeTakeFirstOrThrow())!.vault_pubkey;
    await expect
      .poll(async () => (await getVaultByPubkey(unit.store.db, carolPubkey))!.status, {
        timeout: 10_000,
      })
      .toBe('liquidated');
    // The app serves its three oracle commitments, which the web's repossess fee counts.
    const listed = (await getJson(`${unit.url}/api/liquidations`)).body as unknown as {
      vault_id: string;
      oracles: number;
    }[];
    expect(listed.find((l) => l.vault_id === carolVault.id)?.oracles).toBe(3);
    await guardiansSeePrice(carolVault.th);
    // The quote is the guardians' quorum: at the new price before guardian 1 goes.
    await quorumAt(unit, point.priceCents);
    // Guardian 1, the first oracle, is down: guardians 2 and 3 reveal and sign.
    await network.kill(1);
    try {
      const { request } = await bob.repossess(carolPubkey, carolVault.id);
      const { vault_txid } = await call<{ vault_txid: string }>(
        unit.guardian,
        'vault.repossess',
        request,
      );
      const raw = (await unit.chain.txHex(vault_txid))!;
      const tx = Transaction.fromRaw(hex.decode(raw), { allowUnknownOutputs: true });
      // <group signature> <secret> <liquidation leaf> <control block>
      const [, secret, leaf, control] = tx.getInput(0).finalScriptWitness!;
      const opened = classifyTapLeaf(leaf!);
      expect(opened?.kind).toBe('liquidation');
      const index = carolVault.hashes.indexOf(hex.encode(hash160(secret!)));
      expect([1, 2]).toContain(index);
      expect(hex.encode((opened as { thresholdHash: Uint8Array }).thresholdHash)).toBe(
        carolVault.hashes[index],
      );
      // A leaf of the three-oracle tree of layout 2: beside the exit leaf, then the update leaf,
      // then two levels of the settlement and three liquidation leaves (estimateVsize's oracles
      // and spentTermed count it).
      expect(TaprootControlBlock.decode(control!).merklePath.length).toBe(4);
      // Bob's vault, of layout 2 too, spent through its update leaf: the exit's sibling and the
      // rest of the slot, as VAULT_UPDATE_INPUT_WU and spentTermed count it.
      const [, , updateLeaf, updateControl] = tx.getInput(1).finalScriptWitness!;
      expect(classifyTapLeaf(updateLeaf!)?.kind).toBe('update');
      expect(TaprootControlBlock.decode(updateControl!).merklePath.length).toBe(2);
      await paysTheChosenRate(tx);
      // It is that guardian's secret: the guardian reveals the same one now that its price allows.
      const revealed = await getJson(
        `${set.members[index]!.url}/v1/oracle/secret?th=${carolVault.th}&ts=${carolVault.stamp}`,
      );
      expect(revealed.status).toBe(200);
      expect(revealed.body.secret).toBe(hex.encode(secret!));
      expect((await getVaultByPubkey(unit.store.db, carolPubkey))!.status).toBe('repossessed');
    } finally {
      await network.start(1);
    }
  }, 120_000);
});

// A vault moves to the next guardian set's key on its next action (docs/protocol.md, "Guardian
// rotation"), with real processes on the app's real devnet: a 2-of-3 set from the CLI's DKG and
// `--policy vault` guardians; a vault opened under set 1; `guardian rotate --replace 3` makes set 2
// (guardians 1 and 2 stay, a new guardian 3); the app restarts on the next network's directory (the
// chain of sets) with the same database. The vault's next action (a deposit) is signed by set 1 and
// its new output commits to set 2's key; the action after it (a borrow) by set 2, its treasury
// input (still set 1's key) by set 1. The replaced guardian with another set-1 share signs nothing
// that spends the moved vault; the chain on disk is checked from the pinned key. Then the operator's
// `treasury move`: set 1 signs the treasury's move to `OP_1 <set 2's key>` with all its UNIT (every
// set-1 guardian refuses one that pays elsewhere), a server on this database takes set 2's treasury,
// a `split` is signed by set 2, and set 1 signs nothing of the treasury any more.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { schnorr } from '@noble/curves/secp256k1.js';
import { base64, hex } from '@scure/base';
import { Address, OutScript, p2tr, TEST_NETWORK, Transaction } from '@scure/btc-signer';
import { pubSchnorr } from '@scure/btc-signer/utils.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  declarationOf,
  updateLeafScript,
  vaultOutput,
  TAPSCRIPT_LEAF_VERSION,
} from '@unit/bitcoin';
import {
  Coordinator,
  loadIdentity,
  verifySet,
  type GuardianSet,
  type OracleCommitment,
} from '@unit/guardian-net';
import {
  CLI,
  freePorts,
  kill9,
  run,
  waitHealthy,
  type Proc,
} from '../../../../packages/guardian-net/test/harness';
import { UNIT_POSTAGE_SATS } from '@unit/protocol';
import {
  guardianNetworkSchema,
  progressNotificationSchema,
  type Approvals,
} from '@unit/protocol/wire';
import type { RpcContext } from '../../src/rpc/json-rpc';
import {
  getSetting,
  getVaultByPubkey,
  migrateToLatest,
  openStore,
  termOf,
  type VaultRow,
} from '../../src/store';
import { devnetMigrations } from '../../src/devnet/migrations';
import { guardianMigrations } from '../../src/cosign';
import { treasuryOutputOf } from '../../src/cosign/treasury-output';
import { vaultGuardKeyOf } from '../../src/cosign/vault-guard-key';
import { NetworkOracles, oracleHashesKey } from '../../src/oracle/network-oracles';
import { reindexFromChain, timedFetch } from '../../src/operator/reindex';
import { reindexWhenEmpty } from '../../src/startup';
import { loadConfig } from '../../src/config';
import { NetworkLeaves } from '../../src/operator/vault-leaves';
import { recordLiquidation } from '../../src/store/liquidations';
import { loadGuardianNetwork } from '../../src/network-client/set-chain';
import { networkSigner } from '../../src/network-client/network-signer';
import { guardianSignerOf, pinnedNetwork, servedKeys } from '../../src/network-client/signer-of';
import { runOperator } from '../../src/operator/cli';
import { treasuryCosigner, TreasuryRefused } from '../../src/operator/treasury-cosign';
import { planMove } from '../../src/operator/treasury-move';
import { planTreasuryTx } from '../../src/operator/treasury-split';
import { loadGuardianKeys } from '../../src/store/keys';
import { signetEnvFor } from '../operator/network';
import { startTestApp, type RunningApp } from '../support';
import { call, TestWallet, type Harness } from '../guardian/harness';
import {
  appHarness,
  appReadingFlags,
  expectUpdateLeafSigned,
  onChain,
  quorumAt,
  startGuardianNetwork,
  type TestGuardianNetwork,
} from './signer-harness';

const readSet = (path: string) => verifySet(JSON.parse(readFileSync(path, 'utf8')));

/**
 * The web app's way (apps/web flows/client-reads.ts currentVault): the vault's current output is
 * built with the vault's own `guard_pubkey` from /api/vaults, its new output with the config's.
 */
class WebWallet extends TestWallet {
  constructor(
    label: string,
    private readonly app: () => RunningApp,
    h: Harness,
  ) {
    super(label, h);
  }

  override async vault(pubkey = this.vaultPubkey) {
    const utxo = await super.vault(pubkey);
    const res = await fetch(`${this.app().url}/api/vaults?pubkey=${pubkey}`);
    const [dto] = (await res.json()) as { guard_pubkey: string }[];
    const row = (await getVaultByPubkey(this.app().store.db, pubkey))!;
    const output = vaultOutput({
      vaultPubkey: hex.decode(pubkey),
      guardPubkey: hex.decode(dto!.guard_pubkey),
      thresholdHash: await this.app().oracle.thresholdHashes(row.threshold_cents, row.stamp),
      network: TEST_NETWORK,
      ...termOf(row),
    });
    return { ...utxo, output };
  }
}

/** A wallet whose vault is read from a rebuilt database only (row, hashes, guard key). */
class RestoredWallet extends TestWallet {
  constructor(
    label: string,
    private readonly harness: Harness,
    private readonly restored: (
      pubkey: string,
    ) => Promise<{ row: VaultRow; guardPubkey: Uint8Array; hashes: Uint8Array[] }>,
  ) {
    super(label, harness);
  }

  override async vault(pubkey = this.vaultPubkey) {
    const { row, guardPubkey, hashes } = await this.restored(pubkey);
    const output = (await this.harness.chain.output(row.vault_txid, row.vault_vout))!;
    return {
      txid: row.vault_txid,
      vout: row.vault_vout,
      value: BigInt(output.value),
      unitDebt: BigInt(row.unit_borrowed),
      output: vaultOutput({
        vaultPubkey: hex.decode(pubkey),
        guardPubkey,
        thresholdHash: hashes,
        network: TEST_NETWORK,
        ...termOf(row),
      }),
    };
  }
}

describe('a vault moves to the next guardian set on its next action', () => {
  let network: TestGuardianNetwork;
  let unit: RunningApp;
  let alice: WebWallet;
  /** A vault that stays under set 1: it never acts after the rotation. */
  let bob: WebWallet;
  let set1: GuardianSet;
  let set2: GuardianSet;
  let key1: Uint8Array;
  let key2: Uint8Array;
  /** unix seconds: set 2's guardians start after this */
  let restartedAt = 0;
  const dataDir = mkdtempSync(join(tmpdir(), 'unit-rotation-'));
  const nextDir = join(mkdtempSync(join(tmpdir(), 'guardian-next-')), 'net');
  /** Set 2's guardian processes (1 and 2 also sign for set 1), and the replaced guardian 3 of set 1. */
  const procs = new Map<string, Proc>();

  async function startGuardian(name: string, id: number, dir: string, url: string, args: string[]) {
    const port = new URL(url).port;
    const proc = run(CLI, ['start', '--id', String(id), '--dir', dir, '--port', port, ...args]);
    procs.set(name, proc);
    await waitHealthy(url);
  }
  async function stopGuardian(name: string) {
    const proc = procs.get(name);
    procs.delete(name);
    if (proc) await kill9(proc);
  }

  beforeAll(async () => {
    network = await startGuardianNetwork({ policy: 'vault', start: false });
    set1 = readSet(join(network.dir, 'guardian-set.json'));
    key1 = hex.decode(set1.groupKey!);
    const env = { GUARDIAN_NETWORK: 'external', DATA_DIR: dataDir };
    unit = await startTestApp({ ...env, GUARDIAN_DIR: network.dir });
    await network.startAll(appReadingFlags(unit.url));
    // A quote is the guardians' price quorum in network mode.
    await quorumAt(unit);
    const h1 = appHarness(unit, key1);
    alice = new WebWallet('alice', () => unit, h1);
    bob = new WebWallet('bob', () => unit, h1);
    await unit.devnet!.fund(alice.paymentAddress, 20_000_000n);
    await unit.devnet!.fund(bob.paymentAddress, 20_000_000n);
    await unit.devnet!.mine(1);
    await call(unit.guardian, 'vault.open', (await alice.open(1_000_000n, 50_000n)).request);
    await call(unit.guardian, 'vault.open', (await bob.open(1_000_000n, 50_000n)).request);

    // Set 2 by a new DKG among guardians 1, 2 (the same processes) and a new 3, handed over by set 1.
    // The one operator of this network's directories approves for each staying guardian, in its
    // own directory (the `approve` command's code).
    const rotate = run(CLI, [
      'rotate',
      ...['--dir', network.dir, '--next-dir', nextDir, '--replace', '3'],
      ...['--base-port', String(await freePorts(1)), '--approve-local'],
    ]);
    expect(await rotate.exited, rotate.output()).toBe(0);
    set2 = readSet(join(nextDir, 'guardian-set.json'));
    key2 = hex.decode(set2.groupKey!);

    // The operator's switch: the app and the guardians restart on the next network's directory;
    // the replaced guardian 3 of set 1 is gone.
    await unit.close();
    for (let id = 1; id <= 3; id++) await network.kill(id);
    restartedAt = Math.floor(Date.now() / 1000);
    unit = await startTestApp({ ...env, GUARDIAN_DIR: nextDir });
    for (const m of set2.members)
      await startGuardian(`set2-${m.id}`, m.id, join(nextDir, `guardian-${m.id}`), m.url, [
        '--policy',
        'vault',
        ...appReadingFlags(unit.url),
      ]);
    await quorumAt(unit);
    // New vault outputs commit to set 2's key; the treasury stays `OP_1 <set 1's key>`.
    const h2 = appHarness(unit, key2);
    h2.keys = { ...h2.keys!, treasuryScript: OutScript.encode({ type: 'tr', pubkey: key1 }) };
    alice = new WebWallet('alice', () => unit, h2);
  }, 240_000);

  afterAll(async () => {
    await unit?.close();
    await Promise.all([...procs.keys()].map(stopGuardian));
    await network?.close();
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(join(nextDir, '..'), { recursive: true, force: true });
  });

  /** Input 0 spent alice's update leaf under `key`, the group signature BIP-340 under that key. */
  async function expectVaultSpentUnder(txid: string, key: Uint8Array) {
    const { tx, prevouts } = await onChain(unit, txid);
    expectUpdateLeafSigned(tx, prevouts, alice.vaultPubkey, key);
  }

  /** The vault's output now commits to `key` (read from the chain, against the stored state). */
  async function expectVaultUnder(txid: string, key: Uint8Array) {
    const row = (await getVaultByPubkey(unit.store.db, alice.vaultPubkey))!;
    expect(row.vault_txid).toBe(txid);
    const expected = vaultOutput({
      vaultPubkey: hex.decode(alice.vaultPubkey),
      guardPubkey: key,
      thresholdHash: await unit.oracle.thresholdHashes(row.threshold_cents, row.stamp),
      network: TEST_NETWORK,
      ...termOf(row),
    });
    const output = await unit.chain.output(row.vault_txid, row.vault_vout);
    expect(output!.script_hex).toBe(hex.encode(expected.script));
  }

  const vaultDtoOf = async (pubkey: string) => {
    const res = await fetch(`${unit.url}/api/vaults?pubkey=${pubkey}`);
    return ((await res.json()) as { guard_pubkey: string }[])[0]!;
  };
  const vaultDto = () => vaultDtoOf(alice.vaultPubkey);

  it('serves the newest set: guardPubkey and /api/network are set 2, the treasury and the old vault set 1', async () => {
    const config = (await (await fetch(`${unit.url}/api/config`)).json()) as {
      guardPubkey: string;
      treasuryPubkey: string;
    };
    expect(config.guardPubkey).toBe(set2.groupKey);
    expect(config.treasuryPubkey).toBe(set1.groupKey);
    const net = guardianNetworkSchema.parse(await (await fetch(`${unit.url}/api/network`)).json());
    expect(net).toMatchObject({ set_version: 2, group_key: set2.groupKey });
    // Set 1 is listed below it while it lives: guardians 1 and 2 sign for both, set 1's 3 is gone.
    const members = (s: GuardianSet) => s.members.map((m) => ({ id: m.id, name: m.name }));
    expect(net.guardians).toMatchObject(members(set2));
    expect(net.guardians.map((g) => g.online)).toEqual([true, true, true]);
    expect(net.older_sets).toHaveLength(1);
    expect(net.older_sets[0]).toMatchObject({ set_version: 1, threshold: 2, size: 3 });
    expect(net.older_sets[0]!.group_key).toBe(set1.groupKey);
    expect(net.older_sets[0]!.guardians).toMatchObject(members(set1));
    expect(net.older_sets[0]!.guardians.map((g) => g.online)).toEqual([true, true, false]);
    expect(net.older_sets[0]!.guardians[0]!.version).toBe(net.guardians[0]!.version);
    // Guardians 1 and 2 restarted after the opens and have signed nothing since: the share time
    // shown is the one from before the restart, read from their stores. The new guardian 3 has none.
    const signedAt = net.guardians.map((g) => g.last_signature_at);
    expect(signedAt.slice(0, 2).some((at) => at !== null && at <= restartedAt)).toBe(true);
    expect(signedAt[2]).toBeNull();
    expect((await vaultDto()).guard_pubkey).toBe(set1.groupKey);
  });

  it('signs the old vault’s deposit with set 1, and its new output commits to set 2’s key', async () => {
    const { request } = await alice.deposit(20_000n);
    const { vault_txid } = await call<{ vault_txid: string }>(
      unit.guardian,
      'vault.deposit',
      request,
    );
    await expectVaultSpentUnder(vault_txid, key1);
    await expectVaultUnder(vault_txid, key2);
    expect((await vaultDto()).guard_pubkey).toBe(set2.groupKey);
  }, 60_000);

  it('signs the moved vault’s next action with set 2, the treasury input with set 1', async () => {
    const { request } = await alice.borrow(5_000n);
    const approvals: Approvals[] = [];
    const ctx: RpcContext = {
      notify: (method, params) => {
        if (method !== 'vault.progress') return;
        const note = progressNotificationSchema.parse(params);
        if (note.approvals) approvals.push(note.approvals);
      },
    };
    const { vault_txid } = await call<{ vault_txid: string }>(
      unit.guardian,
      'vault.borrow',
      request,
      ctx,
    );
    // Step 4 across both sets' sessions: it ends with each set's quorum, 2 of 3.
    expect(approvals[0]).toMatchObject({ approved: 0, needed: 2, total: 3 });
    expect(approvals.at(-1)!.approved).toBeGreaterThanOrEqual(2);
    await expectVaultSpentUnder(vault_txid, key2);
    await expectVaultUnder(vault_txid, key2);
    // The treasury (input 1) is still `OP_1 <set 1's key>`: set 1 signed its key path.
    const { tx, prevouts } = await onChain(unit, vault_txid);
    expect(hex.encode(prevouts[1]!.script)).toBe(`5120${set1.groupKey}`);
    const sighash = tx.preimageWitnessV1(
      1,
      prevouts.map((p) => p.script),
      0,
      prevouts.map((p) => p.amount),
    );
    expect(schnorr.verify(tx.getInput(1).finalScriptWitness![0]!, sighash, key1)).toBe(true);
  }, 60_000);

  // ---- the treasury moves to set 2: `npm run operator -- treasury move` ----
  const treasuryOf = (key: Uint8Array) => Address(TEST_NETWORK).encode({ type: 'tr', pubkey: key });
  const unspentUnitAt = async (key: Uint8Array) =>
    (await unit.chain.unitOutputs(treasuryOf(key))).filter((o) => !o.spent);
  const unitSum = (outputs: { unit_amount: number }[]) =>
    outputs.reduce((sum, o) => sum + BigInt(o.unit_amount), 0n);
  const thief = p2tr(
    pubSchnorr(sha256(new TextEncoder().encode('thief'))),
    undefined,
    TEST_NETWORK,
  );

  /** The operator's CLI on the app's own database (its DATA_DIR), reading the chain through the app. */
  async function operator(args: string[]): Promise<string[]> {
    const lines: string[] = [];
    const env = {
      ...signetEnvFor(unit.url, {
        unitRuneId: unit.devnet!.unitRuneId,
        guardianKey: hex.encode(sha256(new TextEncoder().encode('rotation operator key'))),
        guardianNetwork: 'external',
      }),
      ...{ DATA_DIR: dataDir, GUARDIAN_NETWORK: 'external', GUARDIAN_DIR: nextDir },
    };
    await runOperator(args, env, (line) => lines.push(line), 50);
    return lines;
  }

  /** Every input of `txid` spent `OP_1 <key>`'s key path, its signature valid under `key`. */
  async function expectTreasurySignedBy(txid: string, key: Uint8Array) {
    const { tx, prevouts } = await onChain(unit, txid);
    const scripts = prevouts.map((p) => p.script);
    const amounts = prevouts.map((p) => p.amount);
    for (let i = 0; i < tx.inputsLength; i++) {
      expect(hex.encode(scripts[i]!)).toBe(`5120${hex.encode(key)}`);
      const sighash = tx.preimageWitnessV1(i, scripts, 0, amounts);
      expect(schnorr.verify(tx.getInput(i).finalScriptWitness![0]!, sighash, key)).toBe(true);
    }
    return tx;
  }

  /** Set 1's guardians asked to sign `tx` as `kind`: refused by each that answers, with `reason`. */
  async function expectSet1Refuses(
    tx: Transaction,
    kind: 'treasury-split' | 'treasury-move',
    reason: string,
  ) {
    const cosign = treasuryCosigner(loadGuardianNetwork(nextDir), { set: set1, kind });
    const error = await cosign(tx).then(
      () => null,
      (e: unknown) => e as Error,
    );
    expect(error).toBeInstanceOf(TreasuryRefused);
    // Guardians 1 and 2 hold set 1 and set 2; set 1's guardian 3 was replaced (its process gone).
    expect(error!.message).toBe(
      '3 of 3 guardians refused this request. ' +
        `guardian-1: ${reason}; guardian-2: ${reason}; guardian-3: unreachable (ECONNREFUSED)`,
    );
    expect(await unit.chain.txHex(tx.id)).toBeNull();
  }

  it('has every set-1 guardian refuse a treasury move that pays anything elsewhere', async () => {
    // The operator's status names set 1's treasury, and the move still to do.
    const status = await operator(['treasury']);
    expect(status[0]).toBe(`treasury address  ${treasuryOf(key1)}`);
    expect(status.at(-1)).toBe('after a guardian rotation: `treasury move` moves it to set 2');
    const inputs = (await unit.chain.utxos(treasuryOf(key1))).map((o) => ({
      txid: o.txid,
      vout: o.vout,
      value: BigInt(o.value),
    }));
    const from = OutScript.encode({ type: 'tr', pubkey: key1 });
    const { tx } = planMove(from, thief.script, inputs, true, 2);
    await expectSet1Refuses(
      tx,
      'treasury-move',
      "output 0 pays another script than the newest set's treasury",
    );
  }, 60_000);

  it('moves the treasury to set 2, signed by set 1: all its UNIT at OP_1 <set 2 key>', async () => {
    const before = unitSum(await unspentUnitAt(key1));
    expect(before).toBeGreaterThan(0n);
    const lines = await operator(['treasury', 'move', '--fee-rate', '2']);
    const moved = lines.find((l) => l.startsWith("moved set 1's treasury to set 2: "))!;
    const txid = /\(([0-9a-f]{64})\)$/.exec(moved)![1]!;
    expect(lines.at(-1)).toBe("the treasury is set 2's: restart the server to use it");
    await unit.devnet!.mine(1);
    const tx = await expectTreasurySignedBy(txid, key1);
    // Its outputs: set 2's treasury, and the runestone (pointer 0) giving it all the runes.
    for (let o = 0; o < tx.outputsLength; o++)
      expect(hex.encode(tx.getOutput(o).script!)).toMatch(
        o === 1 ? /^6a5d/ : new RegExp(`^5120${set2.groupKey}$`),
      );
    expect(unitSum(await unspentUnitAt(key2))).toBe(before);
    expect(await unit.chain.utxos(treasuryOf(key1))).toEqual([]);
    // A server started on this database takes set 2's treasury (reservations, reads, /api/config).
    const ownKeys = await loadGuardianKeys(unit.store.db, {
      guardianKey: null,
      network: 'devnet',
      dataDir,
    });
    const config = {
      guardianNetwork: { mode: 'external' as const, dir: nextDir, n: 3, t: 2, basePort: 0 },
    };
    const signer = await guardianSignerOf(config, ownKeys, unit.store.db);
    expect(servedKeys(ownKeys, signer).treasuryPubkey).toBe(set2.groupKey);
  }, 90_000);

  it('splits the moved treasury with set 2, and set 1’s guardians sign none of it', async () => {
    const status = await operator(['treasury']);
    expect(status[0]).toBe(`treasury address  ${treasuryOf(key2)}`);
    expect(status.at(-1)).not.toMatch(/treasury move/);
    const lines = await operator(['split', '3', '--fee-rate', '2']);
    const txid = /^split ([0-9a-f]{64}): 3 outputs/.exec(lines.at(-1)!)![1]!;
    await expectTreasurySignedBy(txid, key2);
    await unit.devnet!.mine(1);
    const free = await unspentUnitAt(key2);
    expect(free).toHaveLength(3);
    // A split of set 2's treasury asked of set 1: no set-1 guardian signs an input not under its key.
    const { tx } = planTreasuryTx(
      { treasuryPubkey: key2, treasuryIsGroupKey: true, network: TEST_NETWORK },
      free.map((o) => ({ txid: o.txid, vout: o.vout, value: BigInt(o.btc_amount) })),
      [
        {
          script: OutScript.encode({ type: 'tr', pubkey: key2 }),
          amount: BigInt(UNIT_POSTAGE_SATS),
        },
      ],
      2,
    );
    await expectSet1Refuses(tx, 'treasury-split', 'input 0 is not a treasury output');
  }, 90_000);

  it('has its guardians refuse a new vault output under an older key, even without the app', async () => {
    // A server still on set 1 (not restarted after the rotation) would build this; the app refuses
    // it, so it goes to the guardians straight through a coordinator of the chain.
    // Bob's vault is still under set 1's key: set 1 signs its input, and set 1's guardians that hold
    // set 2 require set 2's key on the new output (a check by the signing set's own key would pass).
    const stale = new WebWallet('bob', () => unit, appHarness(unit, key1));
    expect((await vaultDtoOf(stale.vaultPubkey)).guard_pubkey).toBe(set1.groupKey);
    const { request } = await stale.deposit(10_000n);
    const signer = networkSigner(loadGuardianNetwork(nextDir));
    const error = await signer
      .sign({
        action: 'deposit',
        request,
        nonce: request.nonce,
        spends: declarationOf('deposit').spends,
        psbt: base64.decode(request.psbt),
        secret: null,
      })
      .then(
        () => null,
        (e: unknown) => e as { code?: string; message: string },
      );
    expect(error?.code).toBe('guardians_refused');
    expect(error!.message).toBe(
      '3 of 3 guardians refused this request. ' +
        'guardian-1: Invalid transaction: output 0 is not the expected vault; ' +
        'guardian-2: Invalid transaction: output 0 is not the expected vault; ' +
        'guardian-3: unreachable (ECONNREFUSED)',
    );
  }, 60_000);

  it('serves each liquidated vault’s own key on /api/liquidations: set 1 for one that never moved', async () => {
    // Recorded as the sweep records them (the price is not what this is about): bob's vault never
    // acted after the rotation, alice's moved; the route reads each key from its output on chain.
    // Undone after: the later tests act on both vaults.
    const before = await Promise.all(
      [bob.vaultPubkey, alice.vaultPubkey].map(
        async (pubkey) => (await getVaultByPubkey(unit.store.db, pubkey))!,
      ),
    );
    try {
      for (const v of before)
        await recordLiquidation(unit.store.db, {
          ...{ vault_id: v.vault_id, liquidated_at: Math.floor(Date.now() / 1000) },
          ...{ liquidation_hash: '00'.repeat(20), threshold_cents: v.threshold_cents },
          ...{ price_cents: 1, btc_locked: v.btc_locked, unit_borrowed: v.unit_borrowed },
        });
      const list = (await (await fetch(`${unit.url}/api/liquidations`)).json()) as {
        vault_pubkey: string;
        guard_pubkey: string;
      }[];
      const keyOf = (pubkey: string) => list.find((l) => l.vault_pubkey === pubkey)?.guard_pubkey;
      expect(keyOf(bob.vaultPubkey)).toBe(set1.groupKey);
      expect(keyOf(alice.vaultPubkey)).toBe(set2.groupKey);
    } finally {
      for (const v of before) {
        await unit.store.db.deleteFrom('liquidations').where('vault_id', '=', v.vault_id).execute();
        await unit.store.db
          .updateTable('vaults')
          .set({ status: v.status, updated_at: v.updated_at })
          .where('vault_id', '=', v.vault_id)
          .execute();
      }
    }
  });

  it('rebuilds both vaults on an empty database, each with its own hashes and set key, and the unmoved one then acts', async () => {
    // The chain is the source of truth: a fresh database, the same devnet chain and guardians. The
    // moved vault (alice) commits to set 2's guardians' hashes, the unmoved one (bob) to set 1's,
    // of which the replaced guardian 3 is down: bob waits for it, never guessed.
    const store = await openStore({ file: join(dataDir, 'reindexed.db') });
    try {
      await migrateToLatest(store.db, { ...devnetMigrations, ...guardianMigrations });
      const files = loadGuardianNetwork(nextDir);
      // `npm run reindex`'s call (the operator's CLI refuses the devnet).
      const reindex = () =>
        reindexFromChain({
          db: store.db,
          esploraUrl: `${unit.url}/esplora`,
          fetch: timedFetch,
          // The treasury has moved to set 2 by now; the openings took set 1's UNIT.
          treasuryAddresses: [...files.older, files.set].map(
            (set) =>
              treasuryOutputOf(
                { treasuryPubkey: set.groupKey!, treasuryIsGroupKey: true },
                TEST_NETWORK,
              ).address,
          ),
          leaves: new NetworkLeaves({
            sets: [...files.older, files.set],
            db: store.db,
            network: TEST_NETWORK,
          }),
          now: () => Math.floor(Date.now() / 1000),
          log: { info: () => undefined, warn: () => undefined },
        });
      const live = async (pubkey: string) => {
        const row = (await getVaultByPubkey(unit.store.db, pubkey))!;
        const key = oracleHashesKey(row.threshold_cents, row.stamp);
        const kept = JSON.parse((await getSetting(unit.store.db, key))!) as OracleCommitment;
        return { row, key, kept };
      };
      const [a, b] = [await live(alice.vaultPubkey), await live(bob.vaultPubkey)];
      // Bob's list names set 1's guardian 3 unless it answered too late when bob opened.
      const bobNeedsOld3 = b.kept.statements.some((s) => s.guardian === 3);
      expect(a.kept.statements.every((s) => s.setVersion === 2)).toBe(true);

      // The start on an empty database, wired as the app wires it (GUARDIAN_DIR the next network).
      const config = loadConfig({
        DATA_DIR: dataDir,
        GUARDIAN_NETWORK: 'external',
        GUARDIAN_DIR: nextDir,
        ESPLORA_URL: `${unit.url}/esplora`,
      });
      const first = (await reindexWhenEmpty(config, { ...unit, store }))!;
      expect(first.restored.toSorted()).toEqual(
        [a.row.vault_id, ...(bobNeedsOld3 ? [] : [b.row.vault_id])].toSorted(),
      );
      if (bobNeedsOld3) {
        expect(first.leavesUnknown.map((u) => u.vaultId)).toEqual([b.row.vault_id]);
        expect(first.leavesUnknown[0]!.problem).toContain(
          'guardian-3 of set 1: unreachable (ECONNREFUSED)',
        );
        expect(await getVaultByPubkey(store.db, bob.vaultPubkey)).toBeNull();
        // The replaced guardian answers again (its old directory): bob is rebuilt.
        await startGuardian(
          'old-3-oracle',
          3,
          join(network.dir, 'guardian-3'),
          set1.members[2]!.url,
          [],
        );
        try {
          const second = await reindex();
          expect(second).toMatchObject({ restored: [b.row.vault_id], skipped: [a.row.vault_id] });
        } finally {
          await stopGuardian('old-3-oracle');
        }
      }

      // Each vault as the live database has it, with its own hashes' settings row.
      // The label and the creation time (the opening's block time here) are not the chain's.
      const same = (row: VaultRow) => ({
        ...row,
        name: undefined,
        created_at: undefined,
        id: undefined,
        updated_at: undefined,
      });
      const oracles = new NetworkOracles({ set: set2, db: store.db });
      const guardKeyOf = vaultGuardKeyOf({
        chain: unit.chain,
        thresholdHashes: (th, ts) => oracles.hashes(Number(th), ts),
        network: TEST_NETWORK,
        guardPubkeys: [key2, key1],
      });
      for (const [v, key] of [
        [a, set2.groupKey!],
        [b, set1.groupKey!],
      ] as const) {
        const row = (await getVaultByPubkey(store.db, v.row.vault_pubkey))!;
        expect(same(row)).toEqual(same(v.row));
        const restored = JSON.parse((await getSetting(store.db, v.key))!) as OracleCommitment;
        expect(restored.hashes).toEqual(v.kept.hashes);
        expect(await guardKeyOf(row)).toBe(key);
      }

      // Bob's deposit built from the rebuilt database alone (row, hashes, key as /api/vaults
      // serves it): set 1 signs its input, its new output commits to set 2's key.
      const h2 = appHarness(unit, key2);
      h2.keys = { ...h2.keys!, treasuryScript: OutScript.encode({ type: 'tr', pubkey: key1 }) };
      const rebuilt = new RestoredWallet('bob', h2, async (pubkey) => {
        const row = (await getVaultByPubkey(store.db, pubkey))!;
        return {
          row,
          guardPubkey: hex.decode(await guardKeyOf(row)),
          hashes: await oracles.hashes(row.threshold_cents, row.stamp),
        };
      });
      const { request } = await rebuilt.deposit(10_000n);
      const { vault_txid } = await call<{ vault_txid: string }>(
        unit.guardian,
        'vault.deposit',
        request,
      );
      const { tx, prevouts } = await onChain(unit, vault_txid);
      expectUpdateLeafSigned(tx, prevouts, bob.vaultPubkey, key1);
      expect((await vaultDtoOf(bob.vaultPubkey)).guard_pubkey).toBe(set2.groupKey);
    } finally {
      await store.close();
    }
  }, 90_000);

  it('lets the replaced guardian and another set-1 share sign nothing that spends the moved vault', async () => {
    // The worst case for set 1: guardian 3 (replaced) and guardian 1's set-1 share both approve
    // everything; set 2 has only guardian 1 up. The request is made while set 2's guardians are up
    // (its quote carries their oracle hashes).
    const before = (await getVaultByPubkey(unit.store.db, alice.vaultPubkey))!;
    const { request } = await alice.withdraw(50_000n);
    await stopGuardian('set2-1');
    await stopGuardian('set2-2');
    await stopGuardian('set2-3');
    const [m1, m3] = [set1.members[0]!, set1.members[2]!];
    await startGuardian('evil-1', 1, join(nextDir, 'guardian-1'), m1.url, [
      '--policy',
      'approve-all',
    ]);
    await startGuardian('old-3', 3, join(network.dir, 'guardian-3'), m3.url, [
      '--policy',
      'approve-all',
    ]);
    const refusal = await call(unit.guardian, 'vault.withdraw', request).then(
      () => null,
      (e: unknown) => e as { code?: string; message: string },
    );
    // The app asks set 2, whose key the vault is under: one approval is not a quorum.
    expect(refusal?.code).toBe('guardians_refused');
    expect(refusal!.message).toContain('guardian-2: unreachable');
    expect(await getVaultByPubkey(unit.store.db, alice.vaultPubkey)).toEqual(before);
    expect((await unit.chain.output(before.vault_txid, before.vault_vout))!.spent).toBe(false);

    // Set 1's two shares sign the withdrawal's vault-input sighash, but under set 1's key only: the
    // moved output's leaves hold set 2's key, so the signature opens nothing.
    const tx = Transaction.fromPSBT(base64.decode(request.psbt), { allowUnknownOutputs: true });
    const utxos = [...Array(tx.inputsLength).keys()].map((i) => tx.getInput(i).witnessUtxo!);
    const leaf = updateLeafScript(hex.decode(alice.vaultPubkey), key2);
    const sighash = tx.preimageWitnessV1(
      0,
      utxos.map((u) => u.script),
      0,
      utxos.map((u) => u.amount),
      -1,
      leaf,
      TAPSCRIPT_LEAF_VERSION,
    );
    const identity = loadIdentity(join(network.dir, 'coordinator', 'identity.json'));
    const stolen = await new Coordinator(set1, identity).sign(sighash, { kind: 'test' });
    expect(schnorr.verify(stolen.signature, sighash, key1)).toBe(true);
    expect(schnorr.verify(stolen.signature, sighash, key2)).toBe(false);
  }, 60_000);

  it('loads the chain from the pinned key, refusing a tampered older set, a missing one or a rollback', async () => {
    const copy = mkdtempSync(join(tmpdir(), 'guardian-chain-'));
    try {
      cpSync(join(nextDir, 'coordinator'), join(copy, 'coordinator'), {
        recursive: true,
        dereference: true,
      });
      const v1 = readFileSync(join(nextDir, 'guardian-set-v1.json'), 'utf8');
      const v2 = readFileSync(join(nextDir, 'guardian-set.json'), 'utf8');
      writeFileSync(join(copy, 'guardian-set-v1.json'), v1);
      writeFileSync(join(copy, 'guardian-set.json'), v2);
      const files = loadGuardianNetwork(copy, set1.groupKey);
      expect([files.older.map((s) => s.version), files.set.version]).toEqual([[1], 2]);
      // Set 1 with one member's URL changed: its signatures fail, and so does the chain.
      const tampered = JSON.parse(v1) as { members: { url: string }[] };
      tampered.members[2]!.url = 'http://127.0.0.1:1';
      writeFileSync(join(copy, 'guardian-set-v1.json'), JSON.stringify(tampered));
      expect(() => loadGuardianNetwork(copy, set1.groupKey)).toThrow(
        /chain is broken at the first set: guardian set carries a bad signature/,
      );
      // Set 2 with one of its two handover signatures gone.
      writeFileSync(join(copy, 'guardian-set-v1.json'), v1);
      const short = JSON.parse(v2) as { handover: Record<string, string> };
      delete short.handover[Object.keys(short.handover)[0]!];
      writeFileSync(join(copy, 'guardian-set.json'), JSON.stringify(short));
      expect(() => loadGuardianNetwork(copy, set1.groupKey)).toThrow(
        /broken at the set after version 1: handover carries 1 of the 2/,
      );
      // Set 2 alone, on this database pinned to set 1's key.
      rmSync(join(copy, 'guardian-set-v1.json'));
      writeFileSync(join(copy, 'guardian-set.json'), v2);
      await expect(pinnedNetwork(copy, unit.store.db)).rejects.toThrow(
        `start at group key ${set2.groupKey} (set 2), but this database's vaults commit to ${set1.groupKey}`,
      );
      // The old network's directory again, after this database signed with set 2.
      await expect(pinnedNetwork(network.dir, unit.store.db)).rejects.toThrow(
        /has signed with guardian set 2 .* which the chain in .* does not hold/,
      );
      expect((await pinnedNetwork(nextDir, unit.store.db)).set.version).toBe(2);
    } finally {
      rmSync(copy, { recursive: true, force: true });
    }
  });
}, 400_000);

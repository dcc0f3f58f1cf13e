// A real guardian network for the app's tests: a network directory as `guardian dkg` leaves it, its
// key dealt in-process (dealt-at.ts: these suites test what a network does, the DKG among processes
// has suites of its own), then each guardian as its own process (`guardian start --id i --policy
// <policy>`) on its https URL, which a test can kill -9 and start again. The policy is a parameter, so the same tests can run under the real `vault`
// policy once it exists.
import { schnorr } from '@noble/curves/secp256k1.js';
import { OutScript, type Transaction } from '@scure/btc-signer';
import { afterAll, beforeAll, expect } from 'vitest';
import {
  parseTransaction,
  TAPSCRIPT_LEAF_VERSION,
  updateLeafScript,
  verifyInputs,
  type Prevout,
} from '@unit/bitcoin';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  CLI,
  freePorts,
  kill9,
  run,
  waitHealthy,
  type Proc,
} from '../../../../packages/guardian-net/test/harness';
import { hex } from '@scure/base';
import { freshLabels, TestWallet, type Harness } from '../guardian/harness';
import {
  HEALTH_MAX_BYTES,
  readPublic,
  type GuardianSet,
  type PublicTarget,
} from '@unit/guardian-net';
import { startTestApp, type RunningApp } from '../support';
import { guardianDatabases } from './guardian-stores';
import { dealNetworkDir } from '../../../../packages/guardian-net/test/dealt-at';

export interface TestGuardianNetwork {
  /** GUARDIAN_DIR: the published set and the coordinator's identity. */
  dir: string;
  n: number;
  t: number;
  /** Starts guardian `id` (again) with `policy` (default the network's) and waits until it answers. */
  start(id: number, policy?: string): Promise<void>;
  /** Starts every guardian not running (after the app, when the policy reads it: `extraArgs`). */
  startAll(extraArgs?: string[]): Promise<void>;
  /** kill -9 of guardian `id`. */
  kill(id: number): Promise<void>;
  /** SIGSTOP / SIGCONT: a guardian that holds its connections and never answers. */
  pause(id: number): void;
  resume(id: number): void;
  /** Every running guardian's log so far. */
  output(id: number): string;
  /** Each guardian's PostgreSQL store URL (by id - 1), when `databaseUrl` was given. */
  databaseUrls?: string[];
  close(): Promise<void>;
}

export interface NetworkOptions {
  n?: number;
  t?: number;
  /** `approve-all`, `refuse-all`, or `vault` (with its flags in `extraArgs`). */
  policy?: string;
  extraArgs?: string[];
  /** false: only the DKG; the test calls `startAll` once what the policy reads (the app) is up. */
  start?: boolean;
  /** A PostgreSQL server: each guardian keeps its store in a database of its own there. */
  databaseUrl?: string;
}

/** Until member `m` answers /v1/health: over https, pinned to its identity key (public-read). */
export async function memberHealthy(m: PublicTarget, timeoutMs = 30_000): Promise<void> {
  if (m.url.startsWith('http:')) return void (await waitHealthy(m.url, timeoutMs));
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const health = await readPublic(m, '/v1/health', { timeoutMs: 5_000, maxBytes: HEALTH_MAX_BYTES }).catch(() => null); // prettier-ignore
    if (health?.ok) return;
    if (Date.now() > deadline) throw new Error(`${m.url} did not come up`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

export async function startGuardianNetwork(
  options: NetworkOptions = {},
): Promise<TestGuardianNetwork> {
  const n = options.n ?? 3;
  const t = options.t ?? 2;
  const dir = mkdtempSync(join(tmpdir(), 'guardian-network-'));
  const basePort = await freePorts(n);
  const databases = options.databaseUrl && (await guardianDatabases(options.databaseUrl, dir, n));
  const { members } = dealNetworkDir(dir, n, t, basePort).set;
  const running = new Map<number, Proc>();
  let extraArgs = options.extraArgs ?? [];
  const logs = new Map<number, string>();
  const network: TestGuardianNetwork = {
    dir,
    n,
    t,
    ...(databases ? { databaseUrls: databases.urls } : {}),
    start: async (id, policy = options.policy ?? 'approve-all') => {
      const proc = run(CLI, [
        'start',
        '--id',
        String(id),
        '--dir',
        join(dir, `guardian-${id}`),
        '--policy',
        policy,
        ...extraArgs,
      ]);
      running.set(id, proc);
      await memberHealthy(members[id - 1]!);
    },
    kill: async (id) => {
      const proc = running.get(id);
      if (!proc) return;
      running.delete(id);
      logs.set(id, (logs.get(id) ?? '') + proc.output());
      await kill9(proc);
    },
    pause: (id) => running.get(id)?.child.kill('SIGSTOP'),
    resume: (id) => running.get(id)?.child.kill('SIGCONT'),
    startAll: async (args) => {
      if (args) extraArgs = args;
      for (let id = 1; id <= n; id++) if (!running.has(id)) await network.start(id);
    },
    output: (id) => (logs.get(id) ?? '') + (running.get(id)?.output() ?? ''),
    close: async () => {
      await Promise.all([...running.keys()].map((id) => network.kill(id)));
      if (databases) await databases.drop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
  try {
    if (options.start !== false) await network.startAll();
  } catch (error) {
    await network.close();
    throw error;
  }
  return network;
}

/**
 * In network mode a quote is the guardians' price quorum (oracle/quorum.ts): asks them until the
 * app has one (at `cents`, when given), so the harness's quotes state the price the test set.
 */
export async function quorumAt(unit: RunningApp, cents?: number): Promise<void> {
  const deadline = Date.now() + 45_000;
  for (;;) {
    await unit.oracle.refreshQuorum();
    const quote = await unit.oracle.quoteFresh(0, Math.floor(Date.now() / 1000)).catch(() => null);
    if (quote && (cents === undefined || quote.price_cents === cents)) return;
    if (Date.now() > deadline)
      throw new Error(`no price quorum${cents === undefined ? '' : ` at ${cents}`} in 45 s`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** The real app as the flow harness's wallets expect it, on the real clock. */
export function appHarness(unit: RunningApp, groupKey: Uint8Array): Harness {
  const fresh = freshLabels();
  const harness: Harness = {
    dir: '',
    store: unit.store,
    devnet: unit.devnet!,
    chain: unit.chain,
    oracle: unit.oracle,
    guardian: unit.guardian,
    clock: {
      get now() {
        return Math.floor(Date.now() / 1000);
      },
    },
    keys: {
      guardPubkey: groupKey,
      treasuryPubkey: hex.decode(unit.keys.treasuryPubkey),
      // The treasury is `OP_1 <group key>` in network mode, the key itself with no tweak.
      treasuryScript: OutScript.encode({ type: 'tr', pubkey: groupKey }),
    },
    restart: () => unit.guardian,
    wallet: async (label) => {
      // Its first quote needs the guardians' quorum (their feeds read the app's devnet price).
      await quorumAt(unit);
      const wallet = new TestWallet(fresh(label), harness);
      await unit.devnet!.fund(wallet.paymentAddress, 20_000_000n);
      await unit.devnet!.mine(1);
      return wallet;
    },
    close: () => Promise.resolve(),
  };
  return harness;
}

/**
 * A `--policy vault` guardian's flags on the app at `url`: its chain view, the app's facts, and
 * the app's devnet price as its one feed every 500 ms (a quote is the guardians' quorum).
 */
export const appReadingFlags = (url: string) => [
  ...['--chain', `${url}/esplora`, '--app', url, '--network', 'devnet'],
  ...['--feeds', `devnet@${url}`, '--price-tick', '500'],
];

/** The devnet's own check of a raw transaction's inputs against the chain's prevouts. */
export async function chainVerdict(app: RunningApp, raw: string) {
  const tx = parseTransaction(raw);
  const prevouts: Prevout[] = [];
  for (let i = 0; i < tx.inputsLength; i++) {
    const input = tx.getInput(i);
    const output = await app.chain.output(hex.encode(input.txid!), input.index!);
    prevouts.push({ script: hex.decode(output!.script_hex), amount: BigInt(output!.value) });
  }
  return { verdict: verifyInputs(raw, prevouts), tx, prevouts };
}

/** The broadcast transaction `txid`, every input checked against the chain (the devnet's check). */
export async function onChain(app: RunningApp, txid: string) {
  const raw = await app.chain.txHex(txid);
  expect(raw).not.toBeNull();
  const { verdict, tx, prevouts } = await chainVerdict(app, raw!);
  expect(verdict).toEqual({ ok: true });
  return { tx, prevouts };
}

/**
 * Input 0 spent `vaultPubkey`'s update leaf under `key`:
 * `<guardian sig> <vault sig> <update leaf> <control block>`, the guardian signature BIP-340 under
 * `key` over the leaf's sighash.
 */
export function expectUpdateLeafSigned(
  tx: Transaction,
  prevouts: Prevout[],
  vaultPubkey: string,
  key: Uint8Array,
): void {
  const witness = tx.getInput(0).finalScriptWitness!;
  const leaf = updateLeafScript(hex.decode(vaultPubkey), key);
  expect(hex.encode(witness[2]!)).toBe(hex.encode(leaf));
  const sighash = tx.preimageWitnessV1(
    0,
    prevouts.map((p) => p.script),
    0,
    prevouts.map((p) => p.amount),
    -1,
    leaf,
    TAPSCRIPT_LEAF_VERSION,
  );
  expect(schnorr.verify(witness[0]!, sighash, key)).toBe(true);
}

/**
 * The real app coordinating a 2-of-3 set of `--policy vault` guardians that read its chain and
 * market (GUARDIAN_NETWORK=external), with the price at $95,000.
 */
export async function startVaultPolicyWorld() {
  const network = await startGuardianNetwork({ policy: 'vault', start: false });
  const setFile = join(network.dir, 'guardian-set.json');
  const set = JSON.parse(readFileSync(setFile, 'utf8')) as GuardianSet;
  const unit = await startTestApp({ GUARDIAN_NETWORK: 'external', GUARDIAN_DIR: network.dir });
  await network.startAll(appReadingFlags(unit.url));
  const h = appHarness(unit, hex.decode(set.groupKey!));
  await unit.oracle.setPrice(9_500_000);
  return { network, unit, h, set };
}

type VaultPolicyWorld = Awaited<ReturnType<typeof startVaultPolicyWorld>>;

/** The vault-policy world of the calling file: given to `take` before its tests, stopped after them. */
export function vaultPolicyWorldPerFile(
  take: (world: VaultPolicyWorld) => void,
  timeoutMs: number,
): void {
  let world: VaultPolicyWorld | undefined;
  beforeAll(async () => {
    world = await startVaultPolicyWorld();
    take(world);
  }, timeoutMs);
  afterAll(async () => {
    await world?.unit.stop();
    await world?.network.close();
  });
}

// Three real guardian processes running `--policy vault` against the real app (its devnet's esplora,
// runes and oracle routes), asked through the Coordinator with the contract's context for each
// fixed input of real vault requests: approved and signed (and the signed borrow accepted by the
// devnet) when honest; refused by every guardian, each with its reason, when the transaction breaks
// a rule, when the message is another input's sighash, or when a prevout is not the chain's. The
// app's own guardian is not used: this needs nothing of the server's network wiring.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { schnorr } from '@noble/curves/secp256k1.js';
import { base64, hex } from '@scure/base';
import { Address, OutScript, TEST_NETWORK, Transaction } from '@scure/btc-signer';
import { tapLeafHash } from '@scure/btc-signer/payment.js';
import {
  finalize,
  parseRuneId,
  updateLeafScript,
  quotedHashes,
  vaultOutput,
  type PaymentUtxo,
  type TreasuryUtxo,
  type VaultUtxo,
} from '@unit/bitcoin';
import {
  Coordinator,
  loadIdentity,
  QuorumError,
  verifySet,
  type GuardianSet,
} from '@unit/guardian-net';
import {
  cliDkg,
  CLI,
  freePorts,
  kill9,
  run,
  waitHealthy,
  type Proc,
} from '../../../../packages/guardian-net/test/harness';
import {
  draftRequest,
  fixedInputs,
  inputContext,
  inputMessage,
  Wallet,
  type Draft,
  type DraftParams,
  type OracleQuote,
} from '../../../../packages/guardian-net/test/vault-requests';
import { startTestApp, type RunningApp } from '../support';

let app: RunningApp;
const dir = mkdtempSync(join(tmpdir(), 'guardian-policy-'));
const procs: Proc[] = [];
let set: GuardianSet;
let group: Uint8Array;
let coordinator: Coordinator;

const now = () => Math.floor(Date.now() / 1000);

/** A `--policy vault` guardian's flags on the app's devnet: its chain, price and rune routes. */
const vaultPolicyFlags = () => [
  ...['--policy', 'vault', '--chain', `${app.url}/esplora`, '--app', app.url],
  ...['--network', 'devnet', '--feeds', `devnet@${app.url}`],
];

/** Waits (30 s at most) until guardian `m` is up with a fresh price of its own. */
async function untilPriced(m: GuardianSet['members'][number], proc: Proc): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (!(await waitHealthy(m)).priceFresh) {
    if (Date.now() > deadline) throw new Error(`guardian ${m.id}: no price\n${proc.output()}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

beforeAll(async () => {
  const basePort = await freePorts(3);
  set = await cliDkg(dir, basePort);
  group = hex.decode(set.groupKey!);
  // The app coordinates this set, so its treasury is the group key's `OP_1 <group key>`.
  app = await startTestApp({ GUARDIAN_NETWORK: 'external', GUARDIAN_DIR: dir });
  coordinator = new Coordinator(
    set,
    loadIdentity(join(dir, 'coordinator', 'identity.json')),
    10_000,
  );
  for (const id of [1, 2, 3])
    procs.push(
      run(CLI, [
        'start',
        '--id',
        String(id),
        '--dir',
        join(dir, `guardian-${id}`),
        '--port',
        String(basePort + id - 1),
        ...vaultPolicyFlags(),
      ]),
    );
  // Each guardian up, with its own fresh price read from the app.
  for (const [i, m] of set.members.entries()) await untilPriced(m, procs[i]!);
}, 120_000);

afterAll(async () => {
  await Promise.all(procs.map((p) => (p.child.exitCode === null ? kill9(p) : undefined)));
  await app?.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** The treasury: the group key's own output, as the app and every guardian find it. */
const treasuryScript = () => OutScript.encode({ type: 'tr', pubkey: group });

async function oracleQuote(th: number, ts: number): Promise<OracleQuote> {
  const res = await fetch(`${app.url}/api/oracle/quote?th=${th}&ts=${ts}`);
  expect(res.status).toBe(200);
  return (await res.json()) as OracleQuote;
}

async function payments(wallet: Wallet): Promise<PaymentUtxo[]> {
  return (await app.chain.paymentUtxos(wallet.paymentAddress)).map((u) => ({
    txid: u.txid,
    vout: u.vout,
    value: BigInt(u.value),
    script: wallet.vaultWallet.satsScript,
  }));
}

/** An unspent treasury UNIT output of the app's treasury, as unit.reserve would hand it out. */
async function treasuryUtxo(): Promise<TreasuryUtxo> {
  expect(hex.decode(app.keys.treasuryPubkey)).toEqual(group);
  const address = Address(TEST_NETWORK).encode({ type: 'tr', pubkey: group });
  const outputs = (await app.chain.unitOutputs(address)).filter((o) => !o.spent);
  const o = outputs.sort((a, b) => b.unit_amount - a.unit_amount)[0]!;
  return {
    txid: o.txid,
    vout: o.vout,
    value: BigInt(o.btc_amount),
    script: hex.decode(o.script_hex),
    unitAmount: BigInt(o.unit_amount),
  };
}

async function base(wallet: Wallet): Promise<Omit<DraftParams, 'action' | 'btc' | 'unit'>> {
  return {
    wallet,
    network: TEST_NETWORK,
    groupKey: group,
    treasuryScript: treasuryScript(),
    unitRuneId: parseRuneId(app.devnet!.unitRuneId),
    now: now(),
    quote: oracleQuote,
    payments: await payments(wallet),
    treasury: await treasuryUtxo(),
  };
}

/** Asks the network for one fixed input, waiting for every guardian's decision. */
function ask(draft: Draft, input: number, message?: Uint8Array) {
  const role = fixedInputs(draft.action)[input]!.role;
  const digest = message ?? inputMessage(draft.request, input, role, group);
  return {
    digest,
    signed: coordinator.sign(digest, inputContext(draft, input, role), () => {}, {
      waitForAll: true,
    }),
  };
}

/** Every guardian refused; each one's reason. */
async function refusals(draft: Draft, input: number, message?: Uint8Array): Promise<string[]> {
  const error = await ask(draft, input, message).signed.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(QuorumError);
  const { decisions } = error as QuorumError;
  expect(decisions).toHaveLength(3);
  expect(decisions.filter((d) => d.approved)).toEqual([]);
  return decisions.sort((a, b) => a.guardian - b.guardian).map((d) => d.reason ?? '');
}

async function broadcast(rawHex: string): Promise<void> {
  await app.chain.broadcast(rawHex);
  await app.devnet!.mine(1);
}

const wallet = new Wallet('policy network', TEST_NETWORK);
let opened: Draft;
let vault: VaultUtxo;

describe('three guardians validate vault requests on their own', () => {
  it('approve and sign every fixed input of an honest open', async () => {
    await app.devnet!.fund(wallet.paymentAddress, 20_000_000n);
    await app.devnet!.mine(1);
    opened = await draftRequest({
      ...(await base(wallet)),
      action: 'open',
      btc: 1_000_000n,
      unit: 500_00n,
    });
    const { digest, signed } = ask(opened, 0);
    const result = await signed;
    expect(result.decisions.map((d) => d.reason)).toEqual([null, null, null]);
    expect(schnorr.verify(result.signature, digest, group)).toBe(true);
    // The open's one fixed input is the treasury's: the group's key-path signature spends it.
    const tx = Transaction.fromPSBT(base64.decode(opened.request.psbt), {
      allowUnknownOutputs: true,
    });
    tx.updateInput(0, { tapKeySig: result.signature });
    await broadcast(finalize(tx.toPSBT(0)));
    const { state } = opened.built;
    const quote = await oracleQuote(Number(state.thresholdCents), state.quoteStamp);
    vault = {
      txid: opened.txid,
      vout: 0,
      value: state.vaultSats,
      unitDebt: state.unitDebt,
      output: vaultOutput({
        vaultPubkey: hex.decode(wallet.vaultPubkey),
        guardPubkey: group,
        // One liquidation leaf per guardian oracle.
        thresholdHash: quotedHashes(quote),
        network: TEST_NETWORK,
        // Layout 2: the term its record carries.
        ...(state.term
          ? { term: { settleHeight: state.term.settleHeight, exitHeight: state.term.exitHeight } }
          : {}),
      }),
    };
  });

  it('refuse, each with its reason, a borrow whose transaction issues other than the request says', async () => {
    const draft = await draftRequest({
      ...(await base(wallet)),
      action: 'borrow',
      vault,
      btc: 0n,
      unit: 50_00n,
    });
    const payload = { ...(draft.request.payload as object), borrow_amount: 60_00 };
    const lying = { ...draft, request: { ...draft.request, payload } };
    for (const reason of await refusals(lying, 0))
      expect(reason).toBe('Invalid transaction: the borrowed UNIT does not match the request');
  });

  it("refuse a message that is another input's sighash", async () => {
    const draft = await draftRequest({
      ...(await base(wallet)),
      action: 'borrow',
      vault,
      btc: 0n,
      unit: 50_00n,
    });
    const other = inputMessage(draft.request, 1, 'treasury', group);
    expect(await refusals(draft, 0, other)).toEqual(
      Array(3).fill("the message is not this request's input 0"),
    );
  });

  it("refuse a request whose wallet input claims a prevout that is not the chain's", async () => {
    const b = await base(wallet);
    const inflated = b.payments.map((p) => ({ ...p, value: p.value + 5_000n }));
    const draft = await draftRequest({
      ...b,
      payments: inflated,
      action: 'borrow',
      vault,
      btc: 0n,
      unit: 50_00n,
    });
    for (const reason of await refusals(draft, 0))
      expect(reason).toMatch(/^input \d+ does not match the output on this guardian's chain$/);
  });

  it('approve and sign an honest borrow; the group signature spends the vault on the devnet', async () => {
    const draft = await draftRequest({
      ...(await base(wallet)),
      action: 'borrow',
      vault,
      btc: 0n,
      unit: 50_00n,
    });
    const vaultSession = ask(draft, 0);
    const treasurySession = ask(draft, 1);
    const [signedVault, signedTreasury] = await Promise.all([
      vaultSession.signed,
      treasurySession.signed,
    ]);
    expect(signedVault.decisions.map((d) => d.reason)).toEqual([null, null, null]);
    expect(signedTreasury.decisions.map((d) => d.reason)).toEqual([null, null, null]);
    expect(schnorr.verify(signedTreasury.signature, treasurySession.digest, group)).toBe(true);
    const tx = Transaction.fromPSBT(base64.decode(draft.request.psbt), {
      allowUnknownOutputs: true,
    });
    const leafHash = tapLeafHash(updateLeafScript(hex.decode(wallet.vaultPubkey), group));
    tx.updateInput(0, { tapScriptSig: [[{ pubKey: group, leafHash }, signedVault.signature]] });
    tx.updateInput(1, { tapKeySig: signedTreasury.signature });
    await broadcast(finalize(tx.toPSBT(0)));
    const output = await app.chain.output(draft.txid, 0);
    expect(output?.spent).toBe(false);
  });

  it('`guardian local` hands every start flag to each guardian it runs', async () => {
    const localDir = mkdtempSync(join(tmpdir(), 'guardian-local-'));
    const port = await freePorts(3);
    const local = run(CLI, [
      'local',
      '--dir',
      localDir,
      '--base-port',
      String(port),
      ...vaultPolicyFlags(),
    ]);
    try {
      const localSet = verifySet(await waitForFile(join(localDir, 'guardian-set.json'), local));
      const localGroup = hex.decode(localSet.groupKey!);
      for (const m of localSet.members) await untilPriced(m, local);
      const localCoordinator = new Coordinator(
        localSet,
        loadIdentity(join(localDir, 'coordinator', 'identity.json')),
        10_000,
      );
      // Their own vault policy (not the approve-all default of `local`): another input's message
      // is refused by each.
      const draft = await draftRequest({
        ...(await base(wallet)),
        groupKey: localGroup,
        action: 'open',
        btc: 1_000_000n,
        unit: 500_00n,
      });
      const error = await localCoordinator
        .sign(randomMessage(), inputContext(draft, 0, 'treasury'), () => {}, { waitForAll: true })
        .catch((e: unknown) => e);
      expect((error as QuorumError).decisions.map((d) => d.reason)).toEqual(
        Array(3).fill("the message is not this request's input 0"),
      );
    } finally {
      local.child.kill('SIGTERM');
      await local.exited;
      rmSync(localDir, { recursive: true, force: true });
    }
  });
});

const randomMessage = () => schnorr.utils.randomSecretKey();

/** The file's JSON once `proc` has written all of it. */
async function waitForFile(path: string, proc: Proc): Promise<unknown> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    try {
      return JSON.parse(readFileSync(path, 'utf8'));
    } catch {
      if (Date.now() > deadline || proc.child.exitCode !== null)
        throw new Error(`${path} never written\n${proc.output()}`);
      await new Promise((r) => setTimeout(r, 200));
    }
  }
}

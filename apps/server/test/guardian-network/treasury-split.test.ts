// The operator's treasury commands with the guardian network (GUARDIAN_NETWORK=external): three
// real guardian processes under `--policy vault`, the real app on its devnet (whose genesis etched
// UNIT to the group's treasury, `OP_1 <group key>`), and `npm run operator` as a signet server's
// operator runs it beside them (GUARDIAN_DIR). `split` is co-signed by t guardians, each checking
// it on its own chain view, and two concurrent opens then each take one of its outputs; a split that
// pays elsewhere, burns UNIT or pays a huge fee is refused with every guardian's reason and nothing
// is sent. `etch` signs with the server's own key and pays its premine to the group's treasury.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sha256 } from '@noble/hashes/sha2.js';
import { hex } from '@scure/base';
import { Address, OutScript, p2tr, TEST_NETWORK, Transaction } from '@scure/btc-signer';
import { pubSchnorr } from '@scure/btc-signer/utils.js';
import {
  encodeRunestone,
  parseRuneId,
  RUNE_COMMIT_CONFIRMATIONS,
  transactionOutputs,
} from '@unit/bitcoin';
import { UNIT_POSTAGE_SATS } from '@unit/protocol';
import { runOperator } from '../../src/operator/cli';
import { planTreasuryTx, type Spendable } from '../../src/operator/treasury-split';
import { treasuryCosigner, TreasuryRefused } from '../../src/operator/treasury-cosign';
import { loadGuardianNetwork } from '../../src/network-client/network-signer';
import { guardianKeysOf } from '../../src/store/keys';
import { startTestApp, type RunningApp } from '../support';
import { call, type Harness } from '../guardian/harness';
import { signetEnvFor } from '../operator/network';
import {
  appHarness,
  onChain,
  startGuardianNetwork,
  type TestGuardianNetwork,
} from './signer-harness';

let unit: RunningApp;
let guardians: TestGuardianNetwork;
let h: Harness;
let env: Record<string, string>;
let dataDir: string;
let groupKey: Uint8Array;
let treasury: string;
const TREASURY_SCRIPT = () => OutScript.encode({ type: 'tr', pubkey: groupKey });
/** The operator's own key (GUARDIAN_KEY): with the network it signs only an etching. */
const OPERATOR_KEY = sha256(new TextEncoder().encode('treasury-split test operator key'));

async function operator(args: string[], extra: Record<string, string> = {}): Promise<string[]> {
  const lines: string[] = [];
  await runOperator(args, { ...env, ...extra }, (line) => lines.push(line), 50);
  return lines;
}

const unspentUnit = async () => (await unit.chain.unitOutputs(treasury)).filter((o) => !o.spent);

/** Every outpoint at the treasury address, unspent, as esplora has it (mempool included). */
async function treasuryUtxos(): Promise<string[]> {
  return (await unit.chain.utxos(treasury)).map((o) => `${o.txid}:${o.vout}`).sort();
}

beforeAll(async () => {
  guardians = await startGuardianNetwork({ policy: 'vault', start: false });
  const set = JSON.parse(
    fs.readFileSync(path.join(guardians.dir, 'guardian-set.json'), 'utf8'),
  ) as { groupKey: string };
  groupKey = hex.decode(set.groupKey);
  unit = await startTestApp(
    { GUARDIAN_NETWORK: 'external', GUARDIAN_DIR: guardians.dir },
    { devnetWriteLimitPerMinute: 10_000, writeLimitPerMinute: 10_000 },
  );
  await guardians.startAll([
    ...['--chain', `${unit.url}/esplora`, '--app', unit.url, '--network', 'devnet'],
    ...['--feeds', `devnet@${unit.url}`, '--price-tick', '500'],
    // Each guardian's own ceiling on a split's fee rate (500 sat/vB unless set).
    ...['--max-fee-rate', '100'],
  ]);
  h = appHarness(unit, groupKey);
  treasury = Address(TEST_NETWORK).encode({ type: 'tr', pubkey: groupKey });
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'unit-operator-split-'));
  env = {
    ...signetEnvFor(unit.url, {
      unitRuneId: unit.devnet!.unitRuneId,
      guardianKey: hex.encode(OPERATOR_KEY),
      guardianNetwork: 'external',
    }),
    DATA_DIR: dataDir,
    GUARDIAN_NETWORK: 'external',
    GUARDIAN_DIR: guardians.dir,
  };
  // BTC for the fees, as an operator sends it to the treasury address `treasury` prints.
  await unit.devnet!.fund(treasury, 20_000_000n);
  await unit.devnet!.mine(1);
}, 120_000);

afterAll(async () => {
  await unit?.stop();
  await guardians?.close();
  if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
});

describe('npm run operator -- split, with the guardian network', () => {
  it('refuses a huge fee rate: every guardian names its ceiling, and nothing is sent', async () => {
    const before = await treasuryUtxos();
    const error = await operator(['split', '3', '--fee-rate', '5000']).then(
      () => null,
      (e: unknown) => e as Error,
    );
    expect(error).toBeInstanceOf(TreasuryRefused);
    expect(error!.message).toMatch(/^\d of 3 guardians refused this request\. guardian-/);
    expect(error!.message).toMatch(/the fee \d+ sats is over 100 sat\/vB of its \d+ vB/);
    expect(await treasuryUtxos()).toEqual(before);
  }, 60_000);

  it('splits the treasury UNIT, signed by the group key; two concurrent opens each take a new output', async () => {
    const before = await unspentUnit();
    const total = before.reduce((sum, o) => sum + o.unit_amount, 0);
    const lines = await operator(['split', '5', '--fee-rate', '2']);
    const txid = /^split ([0-9a-f]{64}): 5 outputs, fee \d+ sats$/.exec(lines.at(-1)!)![1]!;
    // Each input's session is signed by the first two to approve it: two guardians, or all three.
    expect(lines.at(-2)).toMatch(/^signed by guardian-\d(, guardian-\d){1,2} \(2 of 3 needed\)$/);
    await unit.devnet!.mine(1);
    // Every input is the treasury's key path, one BIP-340 signature under the group key.
    const { tx, prevouts } = await onChain(unit, txid);
    for (let i = 0; i < tx.inputsLength; i++) {
      expect(hex.encode(prevouts[i]!.script)).toBe(`5120${hex.encode(groupKey)}`);
      expect(tx.getInput(i).finalScriptWitness).toHaveLength(1);
    }
    const after = await unspentUnit();
    expect(after.map((o) => o.txid)).toEqual(Array(5).fill(txid));
    expect(after.every((o) => o.btc_amount === UNIT_POSTAGE_SATS)).toBe(true);
    expect(after.reduce((sum, o) => sum + o.unit_amount, 0)).toBe(total);

    // Two users open at once: each reserved (one after the other, as two users' prompts come) its
    // own output of the split, and both sign and broadcast together.
    const [alice, bob] = await Promise.all([h.wallet('split-alice'), h.wallet('split-bob')]);
    const drafts = [await alice.open(1_000_000n, 50_000n), await bob.open(1_000_000n, 40_000n)];
    const opened = await Promise.all(
      drafts.map((d) => call<{ vault_txid: string }>(unit.guardian, 'vault.open', d.request)),
    );
    const taken = await Promise.all(
      opened.map(async ({ vault_txid }) => {
        const { tx: open } = await onChain(unit, vault_txid);
        return `${hex.encode(open.getInput(0).txid!)}:${open.getInput(0).index}`;
      }),
    );
    expect(new Set(taken).size).toBe(2);
    for (const outpoint of taken) expect(outpoint.startsWith(`${txid}:`)).toBe(true);
  }, 120_000);

  it('is refused by the guardians when it pays an output elsewhere or burns UNIT; nothing is sent', async () => {
    const cosign = treasuryCosigner(loadGuardianNetwork(guardians.dir));
    const free = (await unspentUnit()).slice(0, 2);
    const inputs: Spendable[] = free.map((o) => ({
      txid: o.txid,
      vout: o.vout,
      value: BigInt(o.btc_amount),
    }));
    const fees = (await unit.chain.paymentUtxos(treasury))[0]!;
    inputs.push({ txid: fees.txid, vout: fees.vout, value: BigInt(fees.value) });
    const ctx = { treasuryPubkey: groupKey, treasuryIsGroupKey: true, network: TEST_NETWORK };
    const id = parseRuneId(unit.devnet!.unitRuneId);
    const postage = BigInt(UNIT_POSTAGE_SATS);
    const thief = p2tr(
      pubSchnorr(sha256(new TextEncoder().encode('thief'))),
      undefined,
      TEST_NETWORK,
    );
    const attempts: Array<[string, { script: Uint8Array; amount: bigint }[]]> = [
      [
        'output 1 pays another script than the treasury',
        [
          { script: TREASURY_SCRIPT(), amount: postage },
          { script: thief.script, amount: postage },
          { script: encodeRunestone({ edicts: [{ id, amount: 1n, output: 1 }] }), amount: 0n },
        ],
      ],
      [
        'the runestone sends UNIT to output 1, an OP_RETURN: a burn',
        [
          { script: TREASURY_SCRIPT(), amount: postage },
          { script: encodeRunestone({ edicts: [{ id, amount: 0n, output: 1 }] }), amount: 0n },
        ],
      ],
    ];
    const before = await treasuryUtxos();
    for (const [reason, outputs] of attempts) {
      const { tx } = planTreasuryTx(ctx, inputs, outputs, 2);
      const error = await cosign(tx).then(
        () => null,
        (e: unknown) => e as Error,
      );
      expect(error).toBeInstanceOf(TreasuryRefused);
      expect(error!.message).toMatch(/^\d of 3 guardians refused this request\. /);
      // Each guardian that answered gives the reason it found on its own chain view (one slowed
      // past its time-out by a loaded machine is named unreachable, or its own reads failed).
      const named = error!.message.split('. ').slice(1).join('. ').split('; ');
      const answered = named.filter((line) => new RegExp(`^guardian-\\d: ${reason}$`).test(line));
      expect(answered.length).toBeGreaterThanOrEqual(1);
      for (const line of named)
        if (!answered.includes(line))
          expect(line).toMatch(/^guardian-\d: (unreachable|timed out|validation failed)/);
      expect(await unit.chain.txHex(tx.id)).toBeNull();
    }
    expect(await treasuryUtxos()).toEqual(before);
  }, 60_000);
});

describe('npm run operator -- etch, with the guardian network', () => {
  it("signs with the server's own key and pays the whole premine to the group's treasury", async () => {
    // The server's own treasury key, derived from GUARDIAN_KEY, pays the commit.
    const { treasuryPubkey } = guardianKeysOf(hex.encode(OPERATOR_KEY));
    const own = p2tr(hex.decode(treasuryPubkey), undefined, TEST_NETWORK).address!;
    const etchEnv = { UNIT_RUNE_ID: '' };
    const args = ['etch', '--name', 'UNIT•GROUP•TREASURY', '--supply', '400000', '--outputs', '2'];
    // Before its key's address holds BTC, it says where to send some.
    await expect(operator([...args, '--fee-rate', '2'], etchEnv)).rejects.toThrow(
      new RegExp(`^etch: this server's own key pays the commit .*\\(send BTC to ${own}\\)$`),
    );
    await unit.devnet!.fund(own, 1_000_000n);
    await unit.devnet!.mine(1);
    const said: string[] = [];
    const etching = runOperator(
      [...args, '--fee-rate', '2'],
      { ...env, ...etchEnv },
      (l) => said.push(l),
      50,
    );
    const waitFor = async (pattern: RegExp) => {
      for (let i = 0; i < 400; i++) {
        const line = said.find((l) => pattern.test(l));
        if (line) return line;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      throw new Error(`never said ${pattern}: ${said.join('\n')}`);
    };
    await waitFor(/^commit /);
    await unit.devnet!.mine(RUNE_COMMIT_CONFIRMATIONS);
    const revealTxid = /^reveal ([0-9a-f]{64}) sent/.exec(await waitFor(/^reveal /))![1]!;
    await unit.devnet!.mine(1);
    await etching;
    const reveal = Transaction.fromRaw(hex.decode((await unit.chain.txHex(revealTxid))!), {
      allowUnknownOutputs: true,
    });
    const outputs = transactionOutputs(reveal);
    // The premine's two postage outputs are the group's treasury; the last output is the runestone.
    expect(outputs.map((o) => hex.encode(o.script)).slice(0, 2)).toEqual(
      Array(2).fill(hex.encode(TREASURY_SCRIPT())),
    );
    expect(outputs).toHaveLength(3);
    const runeId = /as (\d+:\d+) \(reveal/.exec(said.find((l) => l.startsWith('etched '))!)![1]!;
    expect((await operator(['use', runeId], etchEnv))[0]).toBe(
      `${runeId} is UNIT•GROUP•TREASURY, divisibility 2, premine 400000`,
    );
  }, 120_000);
});

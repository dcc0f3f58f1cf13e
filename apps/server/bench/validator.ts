// The open validator's catch-up (`npm run bench`, and alone: `npx tsx apps/server/bench/validator.ts`):
// 10,000 vaults and 100,000 records, rebuilt from block 0 by the validator's own follower
// (src/validator/follow.ts: the pure replay, each vault's versions by height, a digest after each
// block). The chain is generated in this process, not on a devnet: 100,000 co-signed actions
// through the guardian would take hours on this machine. Each transaction is laid out by its action's
// own output coder (the layout the guardian parses), with a real state record and threshold, so the
// replay runs every check it runs on a real chain; only the chain reads are in memory, so the
// figure is the validator's work, and a real esplora's answer time adds to it.
import { performance } from 'node:perf_hooks';
import { sha256 } from '@noble/hashes/sha2.js';
import { hex } from '@scure/base';
import {
  DECLARATIONS,
  type LedgerTx,
  type LedgerTxOutput,
  type RuneId,
  type StateRecord,
} from '@unit/bitcoin';
import { liquidationThresholdCents, sats, unitCents, UNIT_POSTAGE_SATS } from '@unit/protocol';
import { Validator } from '../src/validator/follow';
import type { BlockSource } from '../src/validator/esplora-source';
import type { Figure } from './measure';

/** BENCH_VALIDATOR_SCALE=0.1 runs a tenth of it (a quick look). */
const SCALE = Number(process.env.BENCH_VALIDATOR_SCALE ?? 1);
const VAULTS = Math.round(10_000 * SCALE);
const RECORDS = Math.round(100_000 * SCALE);
/** Transactions per block: 100,000 records in 5,000 blocks (a busy month of blocks). */
const PER_BLOCK = 20;
/** Goal: the whole catch-up under 10 minutes on the 2-core machine. */
const GOAL_SECONDS = 600;
const PRICE = 9_500_000n;
const postage = BigInt(UNIT_POSTAGE_SATS);
const rune: RuneId = { block: 1n, tx: 0 };
const key = (label: string) => sha256(new TextEncoder().encode(`validator bench ${label}`));
/** `OP_1 <32 bytes>`: a taproot output script (its key need not be on the curve here). */
const taproot = (bytes: Uint8Array) => new Uint8Array([0x51, 0x20, ...bytes]);
const treasuryScript = taproot(key('treasury'));
const runesScript = taproot(key('runes'));
const satsScript = new Uint8Array([0x00, 0x14, ...key('sats').subarray(0, 20)]);

interface Vault {
  id: string;
  outpoint: { txid: string; vout: number };
  sats: bigint;
  debt: bigint;
  script: Uint8Array;
}

let counter = 0;
const txidOf = () => hex.encode(sha256(new TextEncoder().encode(`tx ${counter++}`)));

function state(action: StateRecord['action'], vaultSats: bigint, debt: bigint): StateRecord {
  return {
    action,
    unitDebt: debt,
    vaultSats,
    quotePriceCents: PRICE,
    thresholdCents: BigInt(liquidationThresholdCents(sats(vaultSats), unitCents(debt))),
    quoteStamp: 1_800_000_000,
    nonce: key(`nonce ${counter}`).subarray(0, 16),
    expiry: 1_800_000_300,
    ...(action === 'o' ? { vaultPubkey: key(`vault ${counter}`) } : {}),
  };
}

const outputsOf = (planned: { script: Uint8Array; amount: bigint }[]): LedgerTxOutput[] =>
  planned.map((o) => ({ script: o.script, value: o.amount }));

const treasuryInput = () => ({
  txid: txidOf(),
  vout: 2,
  prevout: { script: treasuryScript, value: postage },
});
const payment = () => ({ txid: txidOf(), vout: 0, prevout: null });
const issue = (amount: bigint) => ({
  ...{ runesScript, postageSats: postage, treasuryScript, treasuryValue: postage },
  ...{ unitRuneId: rune, amount },
});

/** One action on `vault` (or an opening), as the chain would hold it. */
function action(kind: string, vault: Vault | null, n: number): { tx: LedgerTx; vault: Vault } {
  const txid = txidOf();
  const script = taproot(key(`vault script ${n} ${counter}`));
  const before = vault ?? { sats: 0n, debt: 0n };
  const vaultIn = vault ? [{ ...vault.outpoint, prevout: null }] : [];
  let after = { sats: before.sats, debt: before.debt };
  let planned: { script: Uint8Array; amount: bigint }[];
  let inputs: LedgerTx['inputs'];
  const base = (a: StateRecord['action'], s: bigint, d: bigint) => ({
    vaultScript: script,
    vaultSats: s,
    state: state(a, s, d),
  });
  if (kind === 'open' || kind === 'borrow') {
    const amount = kind === 'open' ? 30_000n : 2_000n;
    after = { sats: kind === 'open' ? 1_000_000n : before.sats, debt: before.debt + amount };
    const fields = {
      ...base(kind === 'open' ? 'o' : 'b', after.sats, after.debt),
      issue: issue(amount),
    };
    planned = DECLARATIONS[kind].outputs.encode(fields);
    inputs = [...vaultIn, treasuryInput(), payment()];
  } else if (kind === 'deposit') {
    after = { sats: before.sats + 50_000n, debt: before.debt };
    planned = DECLARATIONS.deposit.outputs.encode(base('d', after.sats, after.debt));
    inputs = [...vaultIn, payment()];
  } else if (kind === 'repay') {
    after = { sats: before.sats, debt: before.debt - 2_000n };
    const repay = {
      treasuryScript,
      treasuryPostageSats: postage,
      runesScript,
      postageSats: postage,
    };
    const fields = {
      ...base('r', after.sats, after.debt),
      repay: { ...repay, unitRuneId: rune, amount: 2_000n },
    };
    planned = DECLARATIONS.repay.outputs.encode(fields);
    inputs = [...vaultIn, { txid: txidOf(), vout: 1, prevout: null }, payment()];
  } else {
    after = { sats: before.sats - 20_500n, debt: before.debt };
    const fields = {
      ...base('w', after.sats, after.debt),
      withdrawal: { script: satsScript, amount: 20_000n },
    };
    planned = DECLARATIONS.withdraw.outputs.encode(fields);
    inputs = vaultIn;
  }
  const tx = { txid, inputs, outputs: outputsOf(planned) };
  const id = vault?.id ?? txid;
  return { tx, vault: { id, outpoint: { txid, vout: 0 }, ...after, script } };
}

const CYCLE = ['deposit', 'borrow', 'repay', 'withdraw'];

/** 10,000 openings, then rounds of one action per vault until 100,000 records. */
function generateChain(): LedgerTx[][] {
  const txs: LedgerTx[] = [];
  const vaults: Vault[] = [];
  for (let n = 0; n < VAULTS; n++) {
    const opened = action('open', null, n);
    txs.push(opened.tx);
    vaults.push(opened.vault);
  }
  for (let round = 0; txs.length < RECORDS; round++)
    for (let n = 0; n < VAULTS && txs.length < RECORDS; n++) {
      const next = action(CYCLE[round % CYCLE.length]!, vaults[n]!, n);
      txs.push(next.tx);
      vaults[n] = next.vault;
    }
  const blocks: LedgerTx[][] = [[]];
  for (let i = 0; i < txs.length; i += PER_BLOCK) blocks.push(txs.slice(i, i + PER_BLOCK));
  return blocks;
}

/** The chain in memory, answering as the esplora reader does. */
function memorySource(blocks: LedgerTx[][]): BlockSource {
  const hashes = blocks.map((_, i) => hex.encode(sha256(new TextEncoder().encode(`block ${i}`))));
  const byHash = new Map(hashes.map((h, i) => [h, blocks[i]!]));
  return {
    tipHeight: () => Promise.resolve(blocks.length - 1),
    blockHash: (height) => Promise.resolve(hashes[height] ?? null),
    blockTxs: (hash) => Promise.resolve(byHash.get(hash) ?? []),
  };
}

export async function validatorFigures(): Promise<{ figures: Figure[]; lines: string[] }> {
  const generated = performance.now();
  const blocks = generateChain();
  const generation = (performance.now() - generated) / 1000;
  const validator = new Validator(memorySource(blocks), {
    treasuryScripts: [treasuryScript],
    unitRuneId: rune,
  });
  let findings = 0;
  const started = performance.now();
  const cpu = process.cpuUsage();
  const read = await validator.catchUp((r) => (findings += r.findings.length));
  const seconds = (performance.now() - started) / 1000;
  // The machine is shared: the CPU this process got says how much of the wall time was its work.
  const used = process.cpuUsage(cpu);
  const cpuSeconds = (used.user + used.system) / 1e6;
  const records = blocks.reduce((s, b) => s + b.length, 0);
  return {
    figures: [
      {
        name: `validator catch-up: ${VAULTS.toLocaleString('en-US')} vaults, ${records.toLocaleString('en-US')} records (s)`,
        value: seconds,
        goal: { max: GOAL_SECONDS },
        noise: 0,
        unit: ' s',
      },
    ],
    lines: [
      `  validator: ${read.toLocaleString('en-US')} blocks in ${seconds.toFixed(1)} s ` +
        `(${(read / seconds).toFixed(0)} blocks/s, ${(records / seconds).toFixed(0)} records/s), ` +
        `${cpuSeconds.toFixed(1)} s of CPU, ${findings} findings, ` +
        `final ledger ${validator.digestAt(read - 1)}; ` +
        `chain generated in memory in ${generation.toFixed(1)} s (a devnet this size is too slow)`,
    ],
  };
}

if (process.argv[1]?.endsWith('validator.ts')) {
  const { figures, lines } = await validatorFigures();
  for (const f of figures)
    console.log(`${f.name}: ${f.value.toFixed(1)}${f.unit} (goal ≤ ${GOAL_SECONDS} s)`);
  for (const line of lines) console.log(line);
}

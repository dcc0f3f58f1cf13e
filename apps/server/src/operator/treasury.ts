// The operator's treasury work (issue 21; README "Operate on signet"): what the treasury holds, the
// UNIT etching on a network that has none yet, taking an existing rune, and splitting the UNIT into
// outputs of the treasury's postage so that concurrent opens and borrows each find one. Every
// transaction is real, signed by the treasury key, and sent through the configured esplora.
import fs from 'node:fs';
import path from 'node:path';
import { p2tr, TaprootControlBlock, Transaction } from '@scure/btc-signer';
import { equalBytes, type BTC_NETWORK } from '@scure/btc-signer/utils.js';
import type { Kysely } from 'kysely';
import {
  commitmentLeafScript,
  decodeRunestone,
  encodeRunestone,
  parseRuneId,
  parseSpacedRune,
  runeCommitment,
  RUNE_COMMIT_CONFIRMATIONS,
  runeIdToString,
  spacedRuneName,
  transactionOutputs,
  type Edict,
  type RuneId,
} from '@unit/bitcoin';
import { UNIT_POSTAGE_SATS, type UnitOutputDto, type UtxoDto } from '@unit/protocol';
import type { Chain } from '../chain/port';
import type { OrdIndexer } from '../chain/ord';
import { etchedRuneIdFromOrd } from './ord-rune';
import type { Database } from '../store/schema';
import { heldTreasuryOutputs } from '../guardian/locks';

/** What the operator's commands need: the chain, the treasury key, and the server's database. */
export interface OperatorContext {
  chain: Chain;
  /** esplora base URL, for the reads the Chain port has no call for (a block's txids). */
  esploraUrl: string;
  fetch: typeof fetch;
  network: BTC_NETWORK;
  treasuryKey: Uint8Array;
  treasuryPubkey: Uint8Array;
  /** x-only; the vaults' co-signing key (reindex proves a vault's output with it). */
  guardPubkey: Uint8Array;
  db: Kysely<Database>;
  /** Where an etching in progress is remembered, so an interrupted `etch` resumes. */
  dataDir: string;
  say: (line: string) => void;
  now: () => number;
  sleep: (ms: number) => Promise<void>;
  /** How often to look at the chain while waiting for confirmations. */
  pollMs: number;
  /** With RUNES_API=ord: ord's JSON API, which names an etched rune's id (ord-rune.ts). */
  ord?: OrdIndexer | null;
  /** UNIT_RUNE_ID as configured; null before one exists (etch). */
  unitRuneId?: string | null;
}

export const treasuryAddress = (ctx: Pick<OperatorContext, 'treasuryPubkey' | 'network'>) =>
  p2tr(ctx.treasuryPubkey, undefined, ctx.network);

/** UNIT is counted in hundredths: the rune must have divisibility 2. */
export const UNIT_DIVISIBILITY = 2;
export const DEFAULT_UNIT_NAME = 'UNIT•RUNE•TOKEN';
/** 1,000,000,000 UNIT in hundredths, as the devnet's genesis premines. */
export const DEFAULT_UNIT_SUPPLY = 100_000_000_000n;
/** How many treasury UNIT outputs an etching or split makes by default: concurrent issues. */
export const DEFAULT_TREASURY_OUTPUTS = 8;
export const MAX_TREASURY_OUTPUTS = 250;
const DUST_SATS = 546n;
const SEQUENCE_RBF = 0xfffffffd;

// ---- status ----

export interface TreasuryStatus {
  address: string;
  /** Every sat at the address, postage included. */
  btcSats: bigint;
  /** Sats spendable for fees: outputs carrying no rune. */
  paymentSats: bigint;
  unitHundredths: bigint;
  unitOutputs: Array<UnitOutputDto & { held: boolean; reservations: number }>;
  paymentOutputs: UtxoDto[];
  /** Live reservations (unit.reserve), by action. */
  reservations: Array<{
    action: string;
    unit_amount: number;
    outpoint: string | null;
    expires_at: number;
  }>;
}

export async function treasuryStatus(ctx: OperatorContext): Promise<TreasuryStatus> {
  const address = treasuryAddress(ctx).address!;
  const [all, payment, units] = await Promise.all([
    ctx.chain.utxos(address),
    ctx.chain.paymentUtxos(address),
    // ord keys UNIT by its rune's name: before any rune id is configured (etch) there is none.
    ctx.ord && !ctx.unitRuneId ? [] : ctx.chain.unitOutputs(address),
  ]);
  const now = ctx.now();
  const held = await heldTreasuryOutputs(ctx.db, now);
  const live = await ctx.db
    .selectFrom('reservations')
    .select(['vault_action', 'unit_amount', 'treasury_txid', 'treasury_vout', 'expires_at'])
    .where('status', '=', 'active')
    .where('expires_at', '>', now)
    .orderBy('expires_at')
    .limit(1000)
    .execute();
  const reservations = live.map((r) => ({
    action: r.vault_action,
    unit_amount: Number(r.unit_amount),
    outpoint: r.treasury_txid === null ? null : `${r.treasury_txid}:${r.treasury_vout}`,
    expires_at: Number(r.expires_at),
  }));
  const unspentUnits = units.filter((o) => !o.spent);
  return {
    address,
    btcSats: all.reduce((sum, o) => sum + BigInt(o.value), 0n),
    paymentSats: payment.reduce((sum, o) => sum + BigInt(o.value), 0n),
    unitHundredths: unspentUnits.reduce((sum, o) => sum + BigInt(o.unit_amount), 0n),
    unitOutputs: unspentUnits.map((o) => ({
      ...o,
      held: held.has(`${o.txid}:${o.vout}`),
      reservations: reservations.filter((r) => r.outpoint === `${o.txid}:${o.vout}`).length,
    })),
    paymentOutputs: payment,
    reservations,
  };
}

const unitText = (hundredths: bigint | number) => {
  const value = BigInt(hundredths);
  return `${value / 100n}.${String(value % 100n).padStart(2, '0')}`;
};

export function statusLines(status: TreasuryStatus, runeId: string | null): string[] {
  const lines = [
    `treasury address  ${status.address}`,
    `UNIT rune         ${runeId ?? '(none configured: etch one or set UNIT_RUNE_ID)'}`,
    `BTC               ${status.btcSats} sats (${status.paymentSats} for fees, the rest is UNIT postage)`,
    `UNIT              ${unitText(status.unitHundredths)} in ${status.unitOutputs.length} outputs`,
  ];
  for (const o of status.unitOutputs)
    lines.push(
      `  ${o.txid}:${o.vout}  ${unitText(o.unit_amount)} UNIT  postage ${o.btc_amount} sats${
        o.btc_amount === UNIT_POSTAGE_SATS ? '' : ` (expected ${UNIT_POSTAGE_SATS})`
      }${o.held ? '  in flight' : ''}${o.reservations > 0 ? `  ${o.reservations} reserved` : ''}`,
    );
  for (const o of status.paymentOutputs)
    lines.push(
      `  ${o.txid}:${o.vout}  ${o.value} sats for fees${o.status.confirmed ? '' : ' (unconfirmed)'}`,
    );
  lines.push(`reservations      ${status.reservations.length} live`);
  for (const r of status.reservations)
    lines.push(
      `  ${r.action} ${unitText(r.unit_amount)} UNIT on ${r.outpoint ?? '(repay: none)'} until ${new Date(r.expires_at * 1000).toISOString()}`,
    );
  return lines;
}

// ---- transactions ----

interface Spendable {
  txid: string;
  vout: number;
  value: bigint;
}

/** The edicts that give `total` of rune `id` to outputs 0..n-1: the remainder first, then equal shares. */
export function splitEdicts(id: RuneId, total: bigint, n: number, outputCount: number): Edict[] {
  if (n < 1 || BigInt(n) > total) throw new Error(`cannot split ${total} into ${n} outputs`);
  const share = total / BigInt(n);
  const remainder = total - share * BigInt(n);
  // An edict of amount 0 means "all that is left", so a zero remainder has no edict of its own.
  // `output` equal to the output count gives `share` to each non-OP_RETURN output in order; the
  // UNIT outputs come first and take everything, so the BTC change after them gets none.
  return [
    ...(remainder > 0n ? [{ id, amount: remainder, output: 0 }] : []),
    { id, amount: share, output: outputCount },
  ];
}

/** Spends treasury key-path outputs; returns the signed transaction and its fee. */
function buildTreasuryTx(
  ctx: OperatorContext,
  inputs: readonly Spendable[],
  outputs: ReadonlyArray<{ script: Uint8Array; amount: bigint }>,
  feeRate: number,
): { tx: Transaction; fee: bigint } {
  const treasury = treasuryAddress(ctx);
  const build = (fee: bigint) => {
    const tx = new Transaction({ allowUnknownOutputs: true });
    for (const input of inputs)
      tx.addInput({
        txid: input.txid,
        index: input.vout,
        witnessUtxo: { script: treasury.script, amount: input.value },
        tapInternalKey: ctx.treasuryPubkey,
        sequence: SEQUENCE_RBF,
      });
    for (const output of outputs) tx.addOutput(output);
    const change =
      inputs.reduce((sum, i) => sum + i.value, 0n) -
      outputs.reduce((sum, o) => sum + o.amount, 0n) -
      fee;
    if (change < 0n)
      throw new Error(
        `the treasury needs ${-change} more sats for this (send BTC to ${treasury.address!})`,
      );
    if (change >= DUST_SATS) tx.addOutput({ script: treasury.script, amount: change });
    tx.sign(ctx.treasuryKey);
    tx.finalize();
    return tx;
  };
  // Sign once to learn the size, then again at the fee that size needs.
  const fee = BigInt(Math.ceil(build(0n).vsize * feeRate));
  return { tx: build(fee), fee };
}

/** Payment outputs, largest first, until `need` sats are covered (or all of them). */
function choosePayment(outputs: readonly UtxoDto[], need: bigint): Spendable[] {
  const chosen: Spendable[] = [];
  let total = 0n;
  for (const o of [...outputs].sort((a, b) => b.value - a.value)) {
    if (total >= need) break;
    chosen.push({ txid: o.txid, vout: o.vout, value: BigInt(o.value) });
    total += BigInt(o.value);
  }
  return chosen;
}

export function checkSplitCount(n: number): void {
  if (!Number.isInteger(n) || n < 1 || n > MAX_TREASURY_OUTPUTS)
    throw new Error(`split: n must be a whole number from 1 to ${MAX_TREASURY_OUTPUTS}`);
}

export interface SplitResult {
  txid: string;
  outputs: number;
  unitHundredths: bigint;
  fee: bigint;
}

/**
 * Splits the treasury's free UNIT into `n` outputs of the treasury postage, one runestone moving
 * it: outputs held by a request in flight or named by a live reservation are left alone.
 */
export async function splitTreasury(
  ctx: OperatorContext,
  runeIdText: string,
  n: number,
  feeRate: number,
): Promise<SplitResult> {
  checkSplitCount(n);
  const id = parseRuneId(runeIdText);
  const status = await treasuryStatus(ctx);
  const busy = status.unitOutputs.filter((o) => o.held || o.reservations > 0);
  for (const o of busy) ctx.say(`left alone (in use): ${o.txid}:${o.vout}`);
  const free = status.unitOutputs.filter((o) => !o.held && o.reservations === 0);
  const total = free.reduce((sum, o) => sum + BigInt(o.unit_amount), 0n);
  if (free.length === 0 || total === 0n) throw new Error('the treasury has no free UNIT to split');
  if (BigInt(n) > total) throw new Error(`${unitText(total)} UNIT cannot make ${n} outputs`);
  const treasury = treasuryAddress(ctx);
  const outputCount = (change: boolean) => n + 1 + (change ? 1 : 0);
  const unitInputs: Spendable[] = free.map((o) => ({
    txid: o.txid,
    vout: o.vout,
    value: BigInt(o.btc_amount),
  }));
  const postage = BigInt(UNIT_POSTAGE_SATS) * BigInt(n);
  const inputPostage = unitInputs.reduce((sum, i) => sum + i.value, 0n);
  // A generous fee allowance for choosing payment outputs; the exact fee comes from the size.
  const allowance = BigInt(Math.ceil(feeRate * (150 + 60 * unitInputs.length + 45 * n)));
  const payment = choosePayment(
    status.paymentOutputs,
    postage + allowance + DUST_SATS - inputPostage,
  );
  // With change the runestone's split edict names one more output; try with, then without.
  let result: { tx: Transaction; fee: bigint } | null = null;
  let lastError: unknown = null;
  for (const change of [true, false]) {
    const outputs = [
      ...Array.from({ length: n }, () => ({
        script: treasury.script,
        amount: BigInt(UNIT_POSTAGE_SATS),
      })),
      {
        script: encodeRunestone({ edicts: splitEdicts(id, total, n, outputCount(change)) }),
        amount: 0n,
      },
    ];
    try {
      const built = buildTreasuryTx(ctx, [...unitInputs, ...payment], outputs, feeRate);
      if (built.tx.outputsLength === outputCount(change)) {
        result = built;
        break;
      }
    } catch (err) {
      lastError = err;
    }
  }
  if (!result)
    throw lastError instanceof Error ? lastError : new Error('split: no transaction fits');
  const txid = await ctx.chain.broadcast(result.tx.hex);
  return { txid, outputs: n, unitHundredths: total, fee: result.fee };
}

// ---- etching ----

export interface EtchingPlan {
  /** Spaced name, e.g. UNIT•RUNE•TOKEN. */
  name: string;
  supply: string;
  outputs: number;
  feeRate: number;
  commitTxid: string;
  commitVout: number;
  commitValue: string;
  revealTxid?: string;
  runeId?: string;
}

const planFile = (ctx: Pick<OperatorContext, 'dataDir'>) => path.join(ctx.dataDir, 'etching.json');

function savePlan(ctx: OperatorContext, plan: EtchingPlan): void {
  fs.mkdirSync(ctx.dataDir, { recursive: true });
  fs.writeFileSync(planFile(ctx), `${JSON.stringify(plan, null, 2)}\n`, { mode: 0o600 });
}

function loadPlan(ctx: OperatorContext): EtchingPlan | null {
  try {
    return JSON.parse(fs.readFileSync(planFile(ctx), 'utf8')) as EtchingPlan;
  } catch {
    return null;
  }
}

/** The commitment output: the treasury key's path, and the leaf that reveals the name. */
function commitOutput(ctx: OperatorContext, rune: string) {
  const leaf = commitmentLeafScript(ctx.treasuryPubkey, runeCommitment(rune));
  const out = p2tr(ctx.treasuryPubkey, { script: leaf }, ctx.network, true);
  const tapLeaf = out.tapLeafScript?.find(([, s]) => equalBytes(s.subarray(0, -1), leaf));
  if (!tapLeaf) throw new Error('commitment leaf missing from its Taproot tree');
  return { script: out.script, leaf, tapLeaf };
}

/** The reveal: spends the commitment by its leaf; etches and premines the supply over n outputs. */
function buildReveal(
  ctx: OperatorContext,
  plan: Omit<EtchingPlan, 'revealTxid' | 'runeId'>,
): Transaction {
  const { rune, spacers } = parseSpacedRune(plan.name);
  const commit = commitOutput(ctx, rune);
  const treasury = treasuryAddress(ctx);
  const supply = BigInt(plan.supply);
  const tx = new Transaction({ allowUnknownOutputs: true });
  tx.addInput({
    txid: plan.commitTxid,
    index: plan.commitVout,
    witnessUtxo: { script: commit.script, amount: BigInt(plan.commitValue) },
    tapLeafScript: [commit.tapLeaf],
    sequence: SEQUENCE_RBF,
  });
  for (let i = 0; i < plan.outputs; i++)
    tx.addOutput({ script: treasury.script, amount: BigInt(UNIT_POSTAGE_SATS) });
  tx.addOutput({
    script: encodeRunestone({
      // 0:0 is "the rune this transaction etches".
      edicts: splitEdicts({ block: 0n, tx: 0 }, supply, plan.outputs, plan.outputs + 1),
      etching: {
        rune,
        spacers,
        divisibility: UNIT_DIVISIBILITY,
        symbol: '¤',
        premine: supply,
      },
    }),
    amount: 0n,
  });
  tx.signIdx(ctx.treasuryKey, 0);
  const signature = tx.getInput(0).tapScriptSig?.[0]?.[1];
  if (!signature) throw new Error('the treasury key did not sign the commitment leaf');
  const [controlBlock, scriptWithVersion] = commit.tapLeaf;
  // No library template knows the leaf: the witness is `<signature> <leaf> <control block>`.
  tx.updateInput(
    0,
    {
      finalScriptWitness: [
        signature,
        scriptWithVersion.subarray(0, -1),
        TaprootControlBlock.encode(controlBlock),
      ],
    },
    true,
  );
  return tx;
}

/** The reveal's fee at `feeRate` (its size does not depend on the commitment's value). */
function revealFee(
  ctx: OperatorContext,
  plan: Omit<EtchingPlan, 'revealTxid' | 'runeId' | 'commitTxid' | 'commitVout' | 'commitValue'>,
): bigint {
  const dry = buildReveal(ctx, {
    ...plan,
    commitTxid: '00'.repeat(32),
    commitVout: 0,
    commitValue: String(BigInt(UNIT_POSTAGE_SATS) * BigInt(plan.outputs) * 2n),
  });
  return BigInt(Math.ceil(dry.vsize * plan.feeRate));
}

async function blockTxids(ctx: OperatorContext, hash: string): Promise<string[]> {
  const url = `${ctx.esploraUrl.replace(/\/+$/, '')}/block/${hash}/txids`;
  const response = await ctx.fetch(url);
  if (!response.ok) throw new Error(`${url} answered ${response.status}`);
  return (await response.json()) as string[];
}

/** The rune id of a confirmed transaction: its block's height and its index in that block. */
async function runeIdOf(ctx: OperatorContext, txid: string): Promise<string | null> {
  const status = await ctx.chain.txStatus(txid);
  if (!status?.confirmed || status.block_height === undefined || !status.block_hash) return null;
  const index = (await blockTxids(ctx, status.block_hash)).indexOf(txid);
  if (index < 0) throw new Error(`${txid} is not in its block ${status.block_hash}`);
  return runeIdToString({ block: BigInt(status.block_height), tx: index });
}

/** Waits until `txid` has `confirmations` (polling); returns the height it confirmed at. */
async function waitForConfirmations(
  ctx: OperatorContext,
  txid: string,
  confirmations: number,
): Promise<number> {
  let last = -1;
  for (;;) {
    const status = await ctx.chain.txStatus(txid);
    if (status === null) throw new Error(`${txid} is gone from the network (replaced or dropped)`);
    if (status.confirmed && status.block_height !== undefined) {
      const have = (await ctx.chain.tip()).height - status.block_height + 1;
      if (have >= confirmations) return status.block_height;
      if (have !== last) ctx.say(`${txid}: ${have} of ${confirmations} confirmations`);
      last = have;
    }
    await ctx.sleep(ctx.pollMs);
  }
}

export interface EtchOptions {
  name: string;
  supply: bigint;
  outputs: number;
  /** Asked only when a new etching starts: one under way keeps the rate it was planned at. */
  feeRate: () => Promise<number>;
}

/**
 * Etches UNIT: a commit transaction pays the commitment output (the name in a tapscript leaf of
 * the treasury key), then, once it has six confirmations, the reveal spends it by that leaf with
 * the etching runestone, premining the supply over `outputs` treasury outputs. What is under way is
 * kept in DATA_DIR/etching.json: run `etch` again and it goes on where it stopped.
 */
export async function etchUnit(ctx: OperatorContext, options: EtchOptions): Promise<EtchingPlan> {
  let plan = loadPlan(ctx);
  if (plan?.runeId) return plan;
  if (!plan) {
    const { rune, spacers } = parseSpacedRune(options.name);
    if (rune.length < 13)
      throw new Error(
        'etch: names of 13 letters or more are unlocked on every network; a shorter one depends on the height (ord)',
      );
    if (
      !Number.isInteger(options.outputs) ||
      options.outputs < 1 ||
      options.outputs > MAX_TREASURY_OUTPUTS
    )
      throw new Error(`etch: outputs must be from 1 to ${MAX_TREASURY_OUTPUTS}`);
    if (options.supply < BigInt(options.outputs))
      throw new Error('etch: supply below the output count');
    const name = spacedRuneName(rune, spacers);
    const feeRate = await options.feeRate();
    const base = { name, supply: String(options.supply), outputs: options.outputs, feeRate };
    const value = BigInt(UNIT_POSTAGE_SATS) * BigInt(options.outputs) + revealFee(ctx, base);
    const commit = commitOutput(ctx, rune);
    const status = await treasuryStatus(ctx);
    const payment = choosePayment(
      status.paymentOutputs,
      value + 2_000n * BigInt(Math.ceil(feeRate)),
    );
    const { tx, fee } = buildTreasuryTx(
      ctx,
      payment,
      [{ script: commit.script, amount: value }],
      feeRate,
    );
    plan = { ...base, commitTxid: tx.id, commitVout: 0, commitValue: String(value) };
    // Remembered before it is sent: a lost answer must not make a second commitment.
    savePlan(ctx, plan);
    await ctx.chain.broadcast(tx.hex);
    ctx.say(`commit ${tx.id} sent (fee ${fee} sats), committing to ${name}`);
  }
  if (!plan.revealTxid) {
    ctx.say(
      `waiting for ${RUNE_COMMIT_CONFIRMATIONS} confirmations of the commit ${plan.commitTxid}`,
    );
    await waitForConfirmations(ctx, plan.commitTxid, RUNE_COMMIT_CONFIRMATIONS);
    const reveal = buildReveal(ctx, plan);
    plan = { ...plan, revealTxid: reveal.id };
    savePlan(ctx, plan);
    try {
      await ctx.chain.broadcast(reveal.hex);
    } catch (err) {
      // Sent before and answered "already known": the same transaction, nothing lost.
      if ((await ctx.chain.txStatus(reveal.id)) === null) throw err;
    }
    ctx.say(`reveal ${reveal.id} sent, etching ${plan.name}`);
  }
  const revealTxid = plan.revealTxid;
  if (!revealTxid) throw new Error('etch: the reveal was not made');
  ctx.say(`waiting for the reveal ${revealTxid} to confirm`);
  await waitForConfirmations(ctx, revealTxid, 1);
  const runeId = ctx.ord
    ? await etchedRuneIdFromOrd(ctx, ctx.ord, plan.name, revealTxid)
    : await runeIdOf(ctx, revealTxid);
  if (!runeId) throw new Error(`the reveal ${revealTxid} is not confirmed`);
  plan = { ...plan, runeId };
  savePlan(ctx, plan);
  return plan;
}

// ---- an existing rune ----

export interface RuneCheck {
  runeId: string;
  name: string | null;
  divisibility: number;
  premine: bigint;
  treasuryUnit: bigint;
}

/**
 * `use <rune id>`: the etching at that id, read from its block, must be a rune of divisibility 2
 * (UNIT counts hundredths). What the treasury holds is what the runes service answers.
 */
export async function checkRune(ctx: OperatorContext, runeIdText: string): Promise<RuneCheck> {
  const id = parseRuneId(runeIdText);
  const hash = await blockHashAt(ctx, Number(id.block));
  const txids = await blockTxids(ctx, hash);
  const txid = txids[id.tx];
  if (!txid) throw new Error(`block ${id.block} has no transaction ${id.tx}`);
  const raw = await ctx.chain.txHex(txid);
  if (!raw) throw new Error(`transaction ${txid} not found`);
  const artifact = decodeRunestone(transactionOutputs(raw));
  if (!artifact || !('runestone' in artifact) || !artifact.runestone.etching)
    throw new Error(`${runeIdText} (${txid}) etches no rune`);
  const etching = artifact.runestone.etching;
  const divisibility = etching.divisibility ?? 0;
  if (divisibility !== UNIT_DIVISIBILITY)
    throw new Error(
      `${runeIdText} has divisibility ${divisibility}; UNIT needs ${UNIT_DIVISIBILITY} (hundredths)`,
    );
  const status = await treasuryStatus(ctx);
  return {
    runeId: runeIdToString(id),
    name: etching.rune ? spacedRuneName(etching.rune, etching.spacers ?? 0) : null,
    divisibility,
    premine: etching.premine ?? 0n,
    treasuryUnit: status.unitHundredths,
  };
}

async function blockHashAt(ctx: OperatorContext, height: number): Promise<string> {
  const url = `${ctx.esploraUrl.replace(/\/+$/, '')}/block-height/${height}`;
  const response = await ctx.fetch(url);
  if (!response.ok) throw new Error(`no block at height ${height} (${response.status})`);
  return (await response.text()).trim();
}

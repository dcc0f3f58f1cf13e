// `npm run operator -- etch`: the UNIT etching on a network that has none yet, a commit then a
// reveal, resumable from DATA_DIR/etching.json.
import fs from 'node:fs';
import path from 'node:path';
import { p2tr, TaprootControlBlock, Transaction } from '@scure/btc-signer';
import { equalBytes, pubSchnorr } from '@scure/btc-signer/utils.js';
import {
  commitmentLeafScript,
  encodeRunestone,
  parseSpacedRune,
  runeCommitment,
  RUNE_COMMIT_CONFIRMATIONS,
  spacedRuneName,
} from '@unit/bitcoin';
import { UNIT_POSTAGE_SATS } from '@unit/protocol';
import {
  MAX_TREASURY_OUTPUTS,
  treasuryAddress,
  UNIT_DIVISIBILITY,
  treasuryStatus,
  type OperatorContext,
} from './treasury';
import {
  buildTreasuryTx,
  choosePayment,
  SEQUENCE_RBF,
  splitEdicts,
  type Spendable,
} from './treasury-split';
import { runeIdOf, waitForConfirmations } from './block-reads';
import { etchedRuneIdFromOrd } from './ord-rune';

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

/**
 * The key that signs the etching's commit and reveal: this server's own treasury key. With the
 * guardian network the treasury is the group key, but an etching spends nothing of it: the commit
 * is paid from this key's own address and only the reveal's premine goes to the treasury
 * (`OP_1 <group key>`), so no guardian signs anything and no context has to be checked.
 */
export function etchingContext(ctx: OperatorContext): OperatorContext {
  if (!ctx.treasuryIsGroupKey) return ctx;
  const { cosignTreasury: _group, ...own } = ctx;
  return { ...own, treasuryPubkey: pubSchnorr(ctx.treasuryKey), treasuryIsGroupKey: false };
}

/** The commitment output: the etching key's path, and the leaf that reveals the name. */
function commitOutput(ctx: OperatorContext, rune: string) {
  const key = pubSchnorr(ctx.treasuryKey);
  const leaf = commitmentLeafScript(key, runeCommitment(rune));
  const out = p2tr(key, { script: leaf }, ctx.network, true);
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

/** The commit, paid from the etching key's own address (with the network: not the treasury's). */
function commitTx(
  ctx: OperatorContext,
  payer: OperatorContext,
  payment: Spendable[],
  script: Uint8Array,
  value: bigint,
  feeRate: number,
) {
  try {
    return buildTreasuryTx(payer, payment, [{ script, amount: value }], feeRate);
  } catch (error) {
    if (!ctx.treasuryIsGroupKey || !(error instanceof Error)) throw error;
    throw new Error(
      `etch: this server's own key pays the commit (the treasury is the guardians' key): ${error.message}`,
    );
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
    // Only its plain BTC pays: before the etching there is no UNIT rune to read. With the guardian
    // network that is the etching key's own address, not the group's treasury.
    const payer = etchingContext(ctx);
    const status = await treasuryStatus(payer, false);
    const payment = choosePayment(
      status.paymentOutputs,
      value + 2_000n * BigInt(Math.ceil(feeRate)),
    );
    const { tx, fee } = commitTx(ctx, payer, payment, commit.script, value, feeRate);
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

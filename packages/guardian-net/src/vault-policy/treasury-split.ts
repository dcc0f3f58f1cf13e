// A guardian's own decision on one input of the operator's treasury split (`npm run operator --
// split` with the guardian network): context `{kind: 'treasury-split', psbt, input}`. The treasury
// is `OP_1 <group key>`, so only t guardians can move it; each checks, on its own chain view:
// - every input is an unspent output of the treasury script (the fee comes from the treasury's own
//   sats: no foreign input, so a split can never be a way to spend someone else's coins with ours);
// - every output but one runestone (value 0) pays the treasury script: no sat leaves it but the fee;
// - the runestone is no cenotaph, etches and mints nothing, names UNIT only, and sends nothing to an
//   OP_RETURN (nor points there): whatever runes the inputs hold then all land on treasury outputs,
//   whatever their amounts, which ord's allocation rule (allocateRunes) confirms. So no UNIT amount
//   has to be read, and the sessions of one split (one per input, decided at once) share one read
//   of the prevouts (`prevoutsOnce`), keeping the decision within its time under load;
// - the fee is at most `maxFeeRate` sat/vB of the signed size (every input a 64-byte key-path
//   signature, so the size is known before signing);
// - the message is the key-path sighash (SIGHASH_DEFAULT) of this input, computed here.
// It does not see the app's reservations: a split spending an output an open is also spending is
// settled by the chain (one of them fails), and no UNIT leaves the treasury either way.
import { base64, hex } from '@scure/base';
import { sha256 } from '@noble/hashes/sha2.js';
import { OutScript, Transaction } from '@scure/btc-signer';
import { equalBytes } from '@scure/btc-signer/utils.js';
import {
  allocateRunes,
  decodeRunestone,
  isRunestoneScript,
  runeIdToString,
  taprootSighash,
  type RuneId,
} from '@unit/bitcoin';
import * as z from 'zod';
import type { SignRequest } from '../signing-rounds';
import type { ChainView } from './chain-view';
import { checkPrevouts, Refused, type ClaimedInput } from './reads';

export const TREASURY_SPLIT_KIND = 'treasury-split';
/** The default ceiling on a split's fee rate (sat/vB); a guardian may set its own. */
export const MAX_TREASURY_FEE_RATE = 500;
/** A split of 250 outputs spending many inputs is a few tens of KB; the envelope caps the rest. */
const MAX_PSBT_CHARS = 200_000;
/** A key-path witness: one 64-byte BIP-340 signature (SIGHASH_DEFAULT). */
const KEY_PATH_SIGNATURE_BYTES = 64;
const PSBT_OPTS = { allowUnknownOutputs: true } as const;
const OP_RETURN = 0x6a;
const WHAT = 'the treasury split';

export const treasurySplitContextSchema = z.object({
  kind: z.literal(TREASURY_SPLIT_KIND),
  /** base64 */
  psbt: z.string().min(1).max(MAX_PSBT_CHARS),
  input: z.number().int().min(0).max(1_000),
});
export type TreasurySplitContext = z.infer<typeof treasurySplitContextSchema>;

export const isTreasurySplit = (context: unknown): boolean =>
  (context as { kind?: unknown } | null)?.kind === TREASURY_SPLIT_KIND;

export interface TreasurySplitCheck {
  chain: ChainView;
  runeId: RuneId;
  /** x-only hex of the set's group key */
  groupKey: string;
  maxFeeRate: number;
}

/**
 * The context of a treasury transaction (split or move: `schema`), its PSBT read; `what` names it
 * in the refusal.
 */
export function readTreasuryPsbt<C extends { psbt: string }>(
  context: unknown,
  schema: z.ZodType<C>,
  what: string,
): { c: C; tx: Transaction } {
  const parsed = schema.safeParse(context);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new Refused(
      `${what} context is malformed (${issue?.path.join('.') || 'context'}: ${issue?.message ?? 'invalid'})`,
    );
  }
  let tx: Transaction;
  try {
    tx = Transaction.fromPSBT(base64.decode(parsed.data.psbt), PSBT_OPTS);
  } catch {
    throw new Refused(`${what} is not a readable PSBT`);
  }
  return { c: parsed.data, tx };
}

/**
 * Every input as the PSBT claims it, each required to pay `treasury` (`whose` says which treasury
 * in the refusal: "a treasury output" and what follows).
 */
export function treasuryInputs(
  tx: Transaction,
  treasury: Uint8Array,
  o: { what: string; whose?: string } = { what: 'the treasury split' },
): ClaimedInput[] {
  const inputs: ClaimedInput[] = [];
  for (let i = 0; i < tx.inputsLength; i++) {
    const input = tx.getInput(i);
    if (!input.txid || input.index === undefined || !input.witnessUtxo)
      throw new Refused(`input ${i} has no witnessUtxo`);
    if (!equalBytes(input.witnessUtxo.script, treasury))
      throw new Refused(`input ${i} is not a treasury output${o.whose ?? ''}`);
    inputs.push({
      txid: hex.encode(input.txid),
      vout: input.index,
      script: input.witnessUtxo.script,
      amount: input.witnessUtxo.amount,
    });
  }
  if (inputs.length === 0) throw new Refused(`${o.what} spends nothing`);
  return inputs;
}

interface Output {
  script: Uint8Array;
  amount: bigint;
}

/** Outputs: the treasury's, and one runestone of value 0. */
function checkOutputs(tx: Transaction, treasury: Uint8Array): Output[] {
  const outputs: Output[] = [];
  for (let i = 0; i < tx.outputsLength; i++) {
    const o = tx.getOutput(i);
    if (!o.script || o.amount === undefined) throw new Refused(`output ${i} is incomplete`);
    outputs.push({ script: o.script, amount: o.amount });
  }
  const stones = outputs.filter((o) => isRunestoneScript(o.script));
  if (stones.length > 1) throw new Refused('the treasury split has more than one runestone');
  if (!outputs.some((o) => equalBytes(o.script, treasury)))
    throw new Refused('the treasury split has no treasury output');
  outputs.forEach((o, i) => {
    if (isRunestoneScript(o.script)) {
      if (o.amount !== 0n) throw new Refused(`the runestone output ${i} carries sats`);
    } else if (!equalBytes(o.script, treasury))
      throw new Refused(`output ${i} pays another script than the treasury`);
  });
  return outputs;
}

/** The runestone moves UNIT only, among treasury outputs, burning nothing; `what` names the move. */
export function checkRunes(
  outputs: { script: Uint8Array }[],
  runeId: RuneId,
  what = 'the treasury split',
): void {
  const artifact = decodeRunestone(outputs);
  if (artifact && 'cenotaph' in artifact)
    throw new Refused(
      `the runestone is a cenotaph (${artifact.flaws.join(', ') || 'cenotaph flag'}): it would burn the treasury's UNIT`,
    );
  const stone = artifact?.runestone;
  const unit = runeIdToString(runeId);
  if (stone?.etching) throw new Refused(`${what} may not etch a rune`);
  if (stone?.mint) throw new Refused(`${what} may not mint`);
  const isOpReturn = (vout: number) =>
    outputs[vout] !== undefined && outputs[vout].script[0] === OP_RETURN;
  for (const edict of stone?.edicts ?? []) {
    if (runeIdToString(edict.id) !== unit)
      throw new Refused(`the runestone moves ${runeIdToString(edict.id)}, not UNIT (${unit})`);
    if (isOpReturn(edict.output))
      throw new Refused(`the runestone sends UNIT to output ${edict.output}, an OP_RETURN: a burn`);
  }
  if (
    stone?.pointer !== undefined &&
    (stone.pointer >= outputs.length || isOpReturn(stone.pointer))
  )
    throw new Refused(`the runestone's pointer ${stone.pointer} is no treasury output`);
  // Every unit of every rune the inputs could hold, moved as ord moves it: none may burn.
  const all = 1n << 100n;
  const { balances, burned } = allocateRunes({
    inputBalances: new Map([[unit, all]]),
    runestone: artifact,
    outputs,
  });
  const landed = balances.reduce((sum, b) => sum + (b.get(unit) ?? 0n), 0n);
  if (burned.size > 0 || landed !== all)
    throw new Refused(`${what} would burn some of the treasury's UNIT`);
}

/** Sessions of one split asked at once read the chain once; a failed read is not kept. */
const PREVOUT_MEMO_MS = 5_000;
const PREVOUT_MEMO_ENTRIES = 64;
const recentReads = new WeakMap<ChainView, Map<string, { at: number; reads: Promise<unknown> }>>();

export function prevoutsOnce(
  chain: ChainView,
  psbt: string,
  inputs: ClaimedInput[],
): Promise<unknown> {
  let memo = recentReads.get(chain);
  if (!memo) recentReads.set(chain, (memo = new Map()));
  const now = Date.now();
  for (const [key, entry] of memo)
    if (now - entry.at > PREVOUT_MEMO_MS || memo.size >= PREVOUT_MEMO_ENTRIES) memo.delete(key);
  const key = hex.encode(sha256(new TextEncoder().encode(psbt)));
  const hit = memo.get(key);
  if (hit) return hit.reads;
  const reads = checkPrevouts(chain, inputs);
  reads.catch(() => memo.delete(key));
  memo.set(key, { at: now, reads });
  return reads;
}

/** The signed size: each input's witness one 64-byte key-path signature. */
export function signedVsize(tx: Transaction): number {
  const sized = tx.clone();
  for (let i = 0; i < sized.inputsLength; i++)
    sized.updateInput(i, { finalScriptWitness: [new Uint8Array(KEY_PATH_SIGNATURE_BYTES)] }, true);
  return sized.vsize;
}

/** The fee at most `maxFeeRate` sat/vB of the signed size. */
export function checkFeeRate(tx: Transaction, fee: bigint, maxFeeRate: number): void {
  const vsize = signedVsize(tx);
  const ceiling = BigInt(Math.floor(maxFeeRate * vsize));
  if (fee > ceiling)
    throw new Refused(
      `the fee ${fee} sats is over ${maxFeeRate} sat/vB of its ${vsize} vB (${ceiling} sats)`,
    );
}

/** Throws Refused with the reason when this guardian will not sign the split's input. */
export async function checkTreasurySplit(req: SignRequest, o: TreasurySplitCheck): Promise<void> {
  const { c, tx } = readTreasuryPsbt(req.context, treasurySplitContextSchema, WHAT);
  const group = hex.decode(o.groupKey);
  const treasury = OutScript.encode({ type: 'tr', pubkey: group });
  const inputs = treasuryInputs(tx, treasury);
  if (c.input >= inputs.length) throw new Refused(`the PSBT has no input ${c.input}`);
  if (!equalBytes(taprootSighash(tx, inputs, c.input, null), req.message))
    throw new Refused(`the message is not the treasury split's input ${c.input}`);
  const outputs = checkOutputs(tx, treasury);
  const fee =
    inputs.reduce((sum, i) => sum + i.amount, 0n) -
    outputs.reduce((sum, out) => sum + out.amount, 0n);
  if (fee < 0n) throw new Refused('the treasury split pays out more than it spends');
  checkFeeRate(tx, fee, o.maxFeeRate);
  checkRunes(outputs, o.runeId);
  await prevoutsOnce(o.chain, c.psbt, inputs);
}

// `npm run operator -- treasury move [--fee-rate R]`, after a guardian rotation (docs/protocol.md,
// "Guardian rotation"): every treasury output under an older set's key (`OP_1 <set v's group
// key>`) is spent to `OP_1 <the newest set's group key>`, one transaction per older set, signed by
// that set (each guardian checks it: packages/guardian-net/src/vault-policy/treasury-move.ts).
// Outputs: one UNIT output of the treasury's postage that a runestone (pointer 0) gives all the
// runes to, and the sats left after the fee; `split` then makes outputs for concurrent issues.
// Outputs held by a request in flight or named by a live reservation are left alone (run it again
// once they are free). Once the moves are broadcast the newest set is recorded as the treasury's
// (network-client/treasury-set.ts): restart the server so that it reserves, reads and splits
// the treasury there.
import { hex } from '@scure/base';
import { OutScript, Transaction } from '@scure/btc-signer';
import { encodeRunestone } from '@unit/bitcoin';
import type { GuardianSet } from '@unit/guardian-net';
import { UNIT_POSTAGE_SATS } from '@unit/protocol';
import { recordTreasurySet } from '../network-client/treasury-set';
import { treasuryCosigner } from './treasury-cosign';
import { SEQUENCE_RBF, signedVsize, type Spendable } from './treasury-split';
import { treasuryStatus, unitText, type OperatorContext } from './treasury';

const DUST_SATS = 546n;

export interface MoveResult {
  txid: string;
  /** the set the treasury outputs were under */
  from: number;
  to: number;
  unitHundredths: bigint;
  sats: bigint;
  fee: bigint;
}

const scriptOf = (set: GuardianSet) =>
  OutScript.encode({ type: 'tr', pubkey: hex.decode(set.groupKey!) });

/** The unsigned move of `inputs` (all under one older set's key) to the newest set's treasury. */
export function planMove(
  from: Uint8Array,
  to: Uint8Array,
  inputs: readonly Spendable[],
  /** some input carries runes: one postage output takes them all (runestone pointer 0) */
  withUnit: boolean,
  feeRate: number,
): { tx: Transaction; fee: bigint } {
  const total = inputs.reduce((sum, i) => sum + i.value, 0n);
  const postage = withUnit ? BigInt(UNIT_POSTAGE_SATS) : 0n;
  const build = (fee: bigint) => {
    const tx = new Transaction({ allowUnknownOutputs: true });
    for (const i of inputs)
      tx.addInput({
        txid: i.txid,
        index: i.vout,
        witnessUtxo: { script: from, amount: i.value },
        sequence: SEQUENCE_RBF,
      });
    if (withUnit) {
      tx.addOutput({ script: to, amount: postage });
      tx.addOutput({ script: encodeRunestone({ edicts: [], pointer: 0 }), amount: 0n });
    }
    const change = total - postage - fee;
    if (change < 0n || (!withUnit && change < DUST_SATS))
      throw new Error(`the treasury has ${total} sats: not enough for the move's fee ${fee}`);
    if (change >= DUST_SATS) tx.addOutput({ script: to, amount: change });
    return tx;
  };
  const fee = BigInt(Math.ceil(signedVsize(build(0n)) * feeRate));
  const tx = build(fee);
  const out = Array.from({ length: tx.outputsLength }, (_, i) => tx.getOutput(i).amount!);
  return { tx, fee: total - out.reduce((sum, a) => sum + a, 0n) };
}

/** Moves one older set's free treasury outputs; null when it holds none. */
async function moveFrom(
  ctx: OperatorContext,
  set: GuardianSet,
  newest: GuardianSet,
  feeRate: number,
): Promise<MoveResult | null> {
  const files = ctx.guardianNetwork!;
  const from = scriptOf(set);
  const status = await treasuryStatus(
    { ...ctx, treasuryPubkey: hex.decode(set.groupKey!), treasuryIsGroupKey: true },
    Boolean(ctx.unitRuneId),
  );
  const busy = new Set(
    status.unitOutputs
      .filter((o) => o.held || o.reservations > 0)
      .map((o) => `${o.txid}:${o.vout}`),
  );
  for (const o of busy) ctx.say(`left alone under set ${set.version} (in use): ${o}`);
  const all = await ctx.chain.utxos(status.address);
  const inputs: Spendable[] = all
    .filter((o) => !busy.has(`${o.txid}:${o.vout}`))
    .map((o) => ({ txid: o.txid, vout: o.vout, value: BigInt(o.value) }));
  if (inputs.length === 0) return null;
  const moved = new Set(inputs.map((i) => `${i.txid}:${i.vout}`));
  const unit = status.unitOutputs
    .filter((o) => moved.has(`${o.txid}:${o.vout}`))
    .reduce((sum, o) => sum + BigInt(o.unit_amount), 0n);
  // Outputs carrying a rune (UNIT, or any other): their postage output and the runestone.
  const payment = new Set(status.paymentOutputs.map((o) => `${o.txid}:${o.vout}`));
  const runes = inputs.some((i) => !payment.has(`${i.txid}:${i.vout}`));
  const { tx, fee } = planMove(from, scriptOf(newest), inputs, runes, feeRate);
  const cosign = treasuryCosigner(files, { say: ctx.say, set, kind: 'treasury-move' });
  const txid = await ctx.chain.broadcast((await cosign(tx)).hex);
  const sats = inputs.reduce((sum, i) => sum + i.value, 0n) - fee;
  return { txid, from: set.version, to: newest.version, unitHundredths: unit, sats, fee };
}

/**
 * Moves the treasury from every older set of the chain to the newest, then records the newest as
 * the treasury's set. Throws before any rotation, and on a refusal (nothing is then recorded).
 */
export async function moveTreasury(ctx: OperatorContext, feeRate: number): Promise<MoveResult[]> {
  const files = ctx.guardianNetwork;
  if (!files) throw new Error('treasury move: only with the guardian network (GUARDIAN_NETWORK)');
  if (files.older.length === 0)
    throw new Error('treasury move: no rotation yet, the treasury is under the only set');
  const results: MoveResult[] = [];
  for (const set of files.older) {
    const result = await moveFrom(ctx, set, files.set, feeRate);
    if (!result) continue;
    results.push(result);
    ctx.say(
      `moved set ${result.from}'s treasury to set ${result.to}: ${unitText(result.unitHundredths)} UNIT, ${result.sats} sats, fee ${result.fee} sats (${result.txid})`,
    );
  }
  await recordTreasurySet(ctx.db, files.set);
  ctx.say(`the treasury is set ${files.set.version}'s: restart the server to use it`);
  return results;
}

// Spending the treasury's key-path outputs, and splitting its free UNIT into outputs of the
// treasury's postage (`npm run operator -- split`).
import { Transaction } from '@scure/btc-signer';
import { encodeRunestone, parseRuneId, type Edict, type RuneId } from '@unit/bitcoin';
import { UNIT_POSTAGE_SATS, type UtxoDto } from '@unit/protocol';
import {
  MAX_TREASURY_OUTPUTS,
  treasuryAddress,
  treasuryStatus,
  unitText,
  type OperatorContext,
} from './treasury';

const DUST_SATS = 546n;
export const SEQUENCE_RBF = 0xfffffffd;

export interface Spendable {
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

/** A key-path witness: one 64-byte BIP-340 signature (SIGHASH_DEFAULT). */
const KEY_PATH_SIGNATURE_BYTES = 64;

/** The size once signed: every input a treasury key path, one 64-byte signature each. */
export function signedVsize(tx: Transaction): number {
  const sized = tx.clone();
  for (let i = 0; i < sized.inputsLength; i++)
    sized.updateInput(i, { finalScriptWitness: [new Uint8Array(KEY_PATH_SIGNATURE_BYTES)] }, true);
  return sized.vsize;
}

/** Spends treasury key-path outputs; returns the unsigned transaction and its fee. */
export function planTreasuryTx(
  ctx: Pick<OperatorContext, 'treasuryPubkey' | 'treasuryIsGroupKey' | 'network'>,
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
        // The group key is the output key itself (no tweak): no internal key to name.
        ...(ctx.treasuryIsGroupKey ? {} : { tapInternalKey: ctx.treasuryPubkey }),
        sequence: SEQUENCE_RBF,
      });
    for (const output of outputs) tx.addOutput(output);
    const change =
      inputs.reduce((sum, i) => sum + i.value, 0n) -
      outputs.reduce((sum, o) => sum + o.amount, 0n) -
      fee;
    if (change < 0n)
      throw new Error(
        `the treasury needs ${-change} more sats for this (send BTC to ${treasury.address})`,
      );
    if (change >= DUST_SATS) tx.addOutput({ script: treasury.script, amount: change });
    return tx;
  };
  // Build once to learn the signed size, then again at the fee that size needs.
  const fee = BigInt(Math.ceil(signedVsize(build(0n)) * feeRate));
  return { tx: build(fee), fee };
}

/** Signs with this server's own treasury key (GUARDIAN_NETWORK off). */
export function signOwnTreasuryTx(ctx: Pick<OperatorContext, 'treasuryKey'>, tx: Transaction) {
  const signed = tx.clone();
  signed.sign(ctx.treasuryKey);
  signed.finalize();
  return signed;
}

/** Spends treasury key-path outputs with this server's own key; the signed transaction and fee. */
export function buildTreasuryTx(
  ctx: OperatorContext,
  inputs: readonly Spendable[],
  outputs: ReadonlyArray<{ script: Uint8Array; amount: bigint }>,
  feeRate: number,
): { tx: Transaction; fee: bigint } {
  const { tx, fee } = planTreasuryTx(ctx, inputs, outputs, feeRate);
  return { tx: signOwnTreasuryTx(ctx, tx), fee };
}

/** Payment outputs, largest first, until `need` sats are covered (or all of them). */
export function choosePayment(outputs: readonly UtxoDto[], need: bigint): Spendable[] {
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
      const built = planTreasuryTx(ctx, [...unitInputs, ...payment], outputs, feeRate);
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
  // With the guardian network the treasury is the group key: t guardians sign it, each after its
  // own checks (treasury-cosign.ts); a refusal throws, and nothing is sent.
  const signed = ctx.cosignTreasury
    ? await ctx.cosignTreasury(result.tx)
    : signOwnTreasuryTx(ctx, result.tx);
  const txid = await ctx.chain.broadcast(signed.hex);
  return { txid, outputs: n, unitHundredths: total, fee: result.fee };
}

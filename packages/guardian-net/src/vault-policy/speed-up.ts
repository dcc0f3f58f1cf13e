// A guardian's own check of a speed-up (a BIP-125 replacement of a vault transaction still in the
// mempool, sent by the coordinator as a request of its own: apps/server/src/cosign/speedup.ts).
// Against its own chain view: the original is in the mempool (known, unconfirmed) and is the action
// and request the context names (its state record's action and nonce); the replacement
// changes nothing of it but the fee, by the speedUp declaration's own check (the same inputs in
// place with their sequences, every output but the change byte for byte, the extra fee from the
// user's side); its fee rate beats the original's (BIP-125); its inputs are the chain's outputs, the
// original's spent by the original only, any added one unspent; the vault input is this vault key's
// vault under this set, and a liquidated one opens with the secret.
//
// What it does not check again, and why: the price, the quote and the request's expiry. The original
// is in the mempool, so its guardian inputs already carry the group's signatures (t guardians
// approved it); the replacement spends the same outputs to the same outputs, so it moves nothing
// the original did not, and it can never be mined alongside it.
import { hex } from '@scure/base';
import type { Transaction } from '@scure/btc-signer';
import { equalBytes, hash160 } from '@scure/btc-signer/utils.js';
import {
  findStateRecord,
  inputWeight,
  outputWeight,
  parseTransaction,
  paymentScriptKind,
  speedUp,
  weightToVsize,
  type ActionDeclaration,
  type VaultFields,
  type VaultOutputParams,
} from '@unit/bitcoin';
import {
  ACTION_SHAPES,
  replacementRefusal,
  type FeeAndSize,
  type ReplacementRefusal,
} from '@unit/protocol';
import type { VaultAction } from '@unit/protocol/wire';
import type { ChainTx, ChainView } from './chain-view';
import type { SpeedUpContext } from './context';
import { checkPrevouts, Refused, vaultOnChain, type ChainTxs, type ClaimedInput } from './reads';

type Declaration = ActionDeclaration<VaultAction, never, VaultFields>;

export interface SpeedUpCheck {
  chain: ChainView;
  c: SpeedUpContext;
  declaration: Declaration;
  /** the replacement PSBT, read */
  bytes: Uint8Array;
  tx: Transaction;
  inputs: ClaimedInput[];
  /** the vault keys its vault output commits to */
  keys: Omit<VaultOutputParams, 'thresholdHash'>;
}

const sum = (values: readonly bigint[]) => values.reduce((a, b) => a + b, 0n);

/**
 * The original as this guardian's chain view has it: known, unconfirmed, with this txid, and the
 * request the context names: its state record holds that action and the original request's nonce,
 * its outputs are that action's (so the declaration's check compares every fixed output).
 */
function originalOf(
  found: ChainTx | null,
  c: SpeedUpContext,
  txid: string,
): { chainTx: ChainTx; tx: Transaction } {
  if (!found) throw new Refused("the transaction it replaces is not in this guardian's mempool");
  if (found.confirmed) throw new Refused('the transaction it replaces is already confirmed');
  let tx: Transaction;
  try {
    tx = parseTransaction(found.hex);
  } catch {
    throw new Refused('the transaction it replaces is not readable');
  }
  if (tx.id !== txid) throw new Refused('the transaction it replaces is not the one named');
  if (found.prevouts.length !== tx.inputsLength)
    throw new Refused('the transaction it replaces has inputs without prevouts');
  const { action, original_nonce: nonce } = c.request;
  const shape = ACTION_SHAPES[action];
  const state = findStateRecord(tx)?.record;
  const layout = shape.outputs.length;
  if (!state || state.action !== shape.code || tx.outputsLength > layout + 1)
    throw new Refused(`the transaction it replaces is not a ${action}`);
  if (hex.encode(state.nonce) !== nonce.toLowerCase())
    throw new Refused("the transaction it replaces is not the original request's");
  return { chainTx: found, tx };
}

/** No outpoint twice: each added input is one the original does not spend. */
function checkDistinct(inputs: ClaimedInput[]): void {
  const seen = new Set<string>();
  for (const [index, input] of inputs.entries()) {
    const outpoint = `${input.txid}:${input.vout}`;
    if (seen.has(outpoint)) throw new Refused(`input ${index} spends an outpoint twice`);
    seen.add(outpoint);
  }
}

/**
 * The replacement's vsize, as the wallet prices it (flows/vsize.ts): the original's own weight, each
 * added payment input and a new change at their largest. The original's inputs count as they were
 * signed there: a wallet signature made again may be a byte longer, a weight unit not counted here
 * (counting it could refuse a replacement the wallet priced exactly).
 */
function replacementVsize(
  original: Transaction,
  tx: Transaction,
  inputs: ClaimedInput[],
  added: number[],
): number {
  let weight = original.weight;
  for (const index of added) weight += inputWeight(paymentScriptKind(inputs[index]!.script)!);
  for (let i = original.outputsLength; i < tx.outputsLength; i++)
    weight += outputWeight(tx.getOutput(i).script!.length);
  return weightToVsize(weight);
}

function feeRefusal(refusal: ReplacementRefusal, after: FeeAndSize, before: FeeAndSize): string {
  if (refusal.rule === 'feerate')
    return (
      `the replacement's fee rate (${after.fee} sats for up to ${after.vsize} vB) is not above ` +
      `the original's (${before.fee} sats for ${before.vsize} vB)`
    );
  if (refusal.rule === 'fee')
    return `the replacement pays less fee than the original (${after.fee}, was ${before.fee} sats)`;
  return `the replacement's extra fee does not pay the relay fee for its size (${refusal.needed} sats needed, ${after.fee} paid)`;
}

/** The fee-only replacement of the original, its fee rate over the original's (BIP-125). */
function checkReplacement(s: SpeedUpCheck, original: { chainTx: ChainTx; tx: Transaction }): void {
  const { chainTx, tx: originalTx } = original;
  const check = speedUp.check(
    s.c.request.action,
    { hex: chainTx.hex, prevouts: chainTx.prevouts },
    s.bytes,
  );
  if (!check.ok) throw new Refused(`Invalid replacement: ${check.reason}`);
  const outputs = Array.from({ length: originalTx.outputsLength }, (_, i) => {
    return originalTx.getOutput(i).amount!;
  });
  const before: FeeAndSize = {
    fee: sum(chainTx.prevouts.map((p) => p.amount)) - sum(outputs),
    vsize: originalTx.vsize,
  };
  const after: FeeAndSize = {
    fee: before.fee + check.extraFee,
    vsize: replacementVsize(originalTx, s.tx, s.inputs, check.addedInputs),
  };
  const refusal = replacementRefusal(after, [before], [before]);
  if (refusal) throw new Refused(feeRefusal(refusal, after, before));
}

/** The vault and liquidated inputs: this key's vault under this set; a claimed vault's secret. */
async function checkVaults(s: SpeedUpCheck, txs: ChainTxs): Promise<void> {
  await Promise.all(
    s.declaration.spends.map(async (spend, index) => {
      const input = s.inputs[index];
      if (!input) throw new Refused(`the PSBT has no input ${index} (${spend.name})`);
      if (spend.role === 'vault') {
        await vaultOnChain(s.chain, txs, input, 'the vault input', s.keys);
      } else if (spend.role === 'liquidated') {
        const { record } = await vaultOnChain(s.chain, txs, input, 'the claimed vault', null);
        const { hashes } = await s.chain.thresholdHashes(
          Number(record.thresholdCents),
          record.quoteStamp,
        );
        const secret = s.c.secret;
        // One liquidation leaf per oracle: the secret must open one of them.
        const opened = secret ? hash160(hex.decode(secret)) : null;
        if (!opened || !hashes.some((h) => equalBytes(h, opened)))
          throw new Refused("the secret does not open the claimed vault's liquidation leaf");
      }
    }),
  );
}

/** The whole check; the session's sighash and the vault key's signature are checked before. */
export async function checkSpeedUp(s: SpeedUpCheck): Promise<void> {
  const originalTxid = s.c.request.original_txid.toLowerCase();
  checkDistinct(s.inputs);
  // Two rounds of reads, each in parallel, as for every action.
  const [found, txs] = await Promise.all([
    s.chain.transaction(originalTxid),
    checkPrevouts(s.chain, s.inputs, originalTxid),
  ]);
  checkReplacement(s, originalOf(found, s.c, originalTxid));
  await checkVaults(s, txs);
}

// A guardian's own decision on the settlement of a vault its owner left to its term (docs/protocol.md,
// "Leaving without the guardians"): context `{kind: 'settle', psbt, vault_pubkey, quote, fee_rate}`.
// The session's set signs the vault's settlement leaf with its group key. Each guardian checks, on
// its own, cheapest first:
// - the context's shape, the PSBT (one input, its prevout claimed), the fee rate within the ceiling;
// - the quote as for a liquidation: the oracle's signature, its age, the set's price quorum and this
//   guardian's own fresh price within the spread of it; its price is the one the split uses;
// - on its own chain view: the tip at or past the vault's term, the vault output unspent and the
//   output the record's term, the vault key and this set's key make (layout 2);
// - the transaction exactly the one it plans from these facts (settlementRefusal: the leaf, the
//   lock, the treasury's part at the quorum price with the liquidation tax, the owner's rest to its
//   own key, nothing else), and the message that settlement's sighash, computed here.
// The treasury's part goes to `OP_1 <newest group key>`: the treasury a rotation moves to.
import { base64, hex } from '@scure/base';
import { OutScript, Transaction } from '@scure/btc-signer';
import { equalBytes, type BTC_NETWORK } from '@scure/btc-signer/utils.js';
import {
  planSettlement,
  settlementRefusal,
  settlementSighash,
  type SettlementRequest,
} from '@unit/bitcoin';
import { ORACLE_QUOTE_MAX_AGE_SECONDS, SETTLEMENT_MAX_FEE_RATE } from '@unit/protocol';
import { signedQuoteSchema, type SignedQuote } from '@unit/protocol/wire';
import * as z from 'zod';
import type { GuardianSet } from '../guardian-set';
import type { OwnPrice } from '../price/own-price';
import type { SignRequest } from '../signing-rounds';
import type { ChainView } from './chain-view';
import { quoteSignedBy } from './context';
import { checkOwnPrice, checkQuoteQuorum, type QuorumSet } from './quote-quorum';
import { checkPrevouts, Refused, vaultOnChain, type ClaimedInput } from './reads';
import { setKeysOf } from './set-keys';

export const SETTLE_KIND = 'settle';
/** One input and two outputs with the leaf's proof: well under a kilobyte of PSBT. */
const MAX_SETTLE_PSBT_CHARS = 8_000;
const PSBT_OPTS = { allowUnknownOutputs: true } as const;

export const settleContextSchema = z.strictObject({
  kind: z.literal(SETTLE_KIND),
  /** base64 */
  psbt: z.string().min(1).max(MAX_SETTLE_PSBT_CHARS),
  /** x-only hex: the vault key the output and the owner's payout commit to */
  vault_pubkey: z.string().regex(/^([0-9a-f]{2}){32}$/),
  quote: signedQuoteSchema,
  fee_rate: z.number().int().min(1).max(SETTLEMENT_MAX_FEE_RATE),
});
export type SettleContext = z.infer<typeof settleContextSchema>;

export const isSettle = (context: unknown): boolean =>
  (context as { kind?: unknown } | null)?.kind === SETTLE_KIND;

export interface SettleCheck {
  chain: ChainView;
  /** x-only hex of the app's oracle: the quote carries its signature */
  oraclePubkey: string;
  network: BTC_NETWORK;
  /** x-only hex of the session's set's group key: the key of the settlement leaf */
  groupKey: string;
  /** every set this guardian holds: the newest one's treasury takes the debt */
  sets?: readonly GuardianSet[];
  /** the set a quote's guardian prices are checked with (quote-quorum.ts) */
  priceSet: QuorumSet | undefined;
  ownPrice: OwnPrice | null;
  /** unix seconds */
  now: number;
  /** the ceiling on the settlement's fee rate, sat/vB */
  maxFeeRate: number;
}

function readContext(context: unknown): SettleContext {
  const parsed = settleContextSchema.safeParse(context);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  throw new Refused(
    `the settlement context is malformed (${issue?.path.join('.') || 'context'}: ${issue?.message ?? 'invalid'})`,
  );
}

/** The settlement PSBT's one input, as it claims its prevout. */
function readInput(psbt: string): { tx: Transaction; input: ClaimedInput } {
  let tx: Transaction;
  try {
    tx = Transaction.fromPSBT(base64.decode(psbt), PSBT_OPTS);
  } catch {
    throw new Refused('the settlement is not a readable PSBT');
  }
  if (tx.inputsLength !== 1) throw new Refused('a settlement spends the vault alone');
  const { txid, index, witnessUtxo } = tx.getInput(0);
  if (!txid || index === undefined || !witnessUtxo)
    throw new Refused('the settlement input has no witnessUtxo');
  const input = { txid: hex.encode(txid), vout: index, ...witnessUtxo };
  return { tx, input };
}

/** The quote as a liquidation's: the oracle's, fresh, the set's quorum, near this guardian's. */
function checkQuote(quote: SignedQuote, o: SettleCheck): void {
  if (!quoteSignedBy(o.oraclePubkey, quote))
    throw new Refused('the price quote is not signed by the oracle');
  const age = Math.max(o.now - quote.time, o.now - quote.ts);
  if (age > ORACLE_QUOTE_MAX_AGE_SECONDS) throw new Refused('the price quote has expired');
  checkQuoteQuorum(quote, o.priceSet, o.now);
  checkOwnPrice(o.ownPrice, quote.price_cents);
}

/** Throws Refused with the reason when this guardian will not sign the settlement. */
export async function checkSettle(req: SignRequest, o: SettleCheck): Promise<void> {
  const c = readContext(req.context);
  if (c.fee_rate > o.maxFeeRate)
    throw new Refused(`the settlement's fee rate is over this guardian's ${o.maxFeeRate} sat/vB`);
  const { tx, input } = readInput(c.psbt);
  checkQuote(c.quote, o);
  const { chain } = o;
  if (!chain.tipHeight) throw new Refused('this guardian cannot read the chain tip for the term');
  const [txs, tip] = await Promise.all([checkPrevouts(chain, [input]), chain.tipHeight()]);
  const keys = setKeysOf(o.groupKey, o.sets);
  const vaultPubkey = hex.decode(c.vault_pubkey);
  const expect = { vaultPubkey, guardPubkey: keys.signing, network: o.network };
  const { record, output } = await vaultOnChain(chain, txs, input, 'the vault', expect);
  if (!record.term || !output?.term)
    throw new Refused('the vault has no term (layout 1): it has no settlement leaf');
  const request: SettlementRequest = {
    vault: output,
    slot: 0,
    utxo: { txid: input.txid, vout: input.vout, amount: input.amount },
    debtCents: record.unitDebt,
    priceCents: BigInt(c.quote.price_cents),
    treasuryScript: OutScript.encode({ type: 'tr', pubkey: keys.newest }),
    feeRate: c.fee_rate,
  };
  const refusal = settlementRefusal(tx, request, tip);
  if (refusal) throw new Refused(refusal);
  if (!equalBytes(settlementSighash(planSettlement(request), request), req.message))
    throw new Refused("the message is not this settlement's sighash");
}

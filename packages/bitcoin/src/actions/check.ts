// The guardian's check of a parsed vault transaction against its request, with no database or chain
// read: the state record binds the quote and the request, the transaction moves exactly the
// payload's amounts (declaration.payloadAmounts) within the reservation, and the action's SPEC
// rules (its ACTION_SHAPES entry: minimum BTC, collateral ratio) and the fee rate hold.
import { hex } from '@scure/base';
import {
  COLLATERAL_PERCENT,
  MIN_BTC_SATS,
  MIN_VAULT_BALANCE_SATS,
  liquidationThresholdCents,
  ratioAtLeast,
  sats,
  unitCents,
  type SignedQuote,
  type VaultAction,
} from '@unit/protocol';
import { equalBytes } from '@scure/btc-signer/utils.js';
import { priceQuorumCommitment, type StateRecord, type StateRecordTerm } from '../core';
import { feeFor } from '../flows/vsize';
import type { ActionDeclaration, ParsedVaultTransaction, PayloadOf, VaultFields } from './types';

export type RefusalCode =
  'bad_transaction' | 'reservation_missing' | 'below_minimum' | 'fee_too_low' | 'ratio_too_low';

export interface Refusal {
  code: RefusalCode;
  message: string;
}

export const invalidTransaction = (reason: string): Refusal => ({
  code: 'bad_transaction',
  message: `Invalid transaction: ${reason}`,
});

export interface GuardianCheckInput<A extends VaultAction> {
  parsed: ParsedVaultTransaction;
  payload: PayloadOf<A>;
  /** `quorum`: with the guardian network, the signed prices the record must commit to. */
  quote: Pick<SignedQuote, 'price_cents' | 'th' | 'ts' | 'quorum'>;
  /** hex, as the request carries it */
  nonce: string;
  expiresAt: number;
  /** hex, as the request carries it: an opening's record must carry it (state record version 2) */
  vaultPubkey: string;
  /** The UNIT the request's reservation was made for; null when the action reserves no UTXO. */
  reservedUnit: bigint | null;
  /**
   * The term and exit sibling of the vault output the guardian rebuilt (`VaultOutput.term` and
   * `exitBranch`, from the quote's term it checked against its own tip): the record must carry
   * exactly these (versions 5 to 8). Absent: a layout 1 output, whose record carries no term.
   */
  term?: StateRecordTerm | undefined;
}

function mismatch(
  actual: bigint | number | string,
  expected: bigint | number | string,
  what: string,
): Refusal | null {
  return String(actual) === String(expected)
    ? null
    : invalidTransaction(`${what} does not match the request`);
}

/**
 * docs/protocol.md, "The state record's commitment to the quorum": a quote with a price `quorum`
 * (network mode) needs a record ending with its priceQuorumCommitment (version 3 or 4); a quote
 * without one (off mode) a record without a commitment (version 1 or 2).
 */
export function quorumCommitmentProblem(
  record: Pick<StateRecord, 'quorumCommitment'>,
  quote: Pick<SignedQuote, 'quorum'>,
): string | null {
  const committed = record.quorumCommitment;
  if (!quote.quorum?.length)
    return committed ? "the state record commits to a price quorum the quote doesn't carry" : null;
  if (!committed) return "the state record does not commit to the quote's price quorum";
  return equalBytes(committed, priceQuorumCommitment(quote.quorum))
    ? null
    : "the state record's price quorum commitment is not the hash of the quote's quorum";
}

/**
 * docs/protocol.md, "Leaving without the guardians": a layout 2 output's record carries its term and
 * the exit leaf's sibling (versions 5 to 8), a layout 1 output's none.
 */
export function termRecordProblem(
  record: Pick<StateRecord, 'term'>,
  expected: StateRecordTerm | undefined,
): string | null {
  const recorded = record.term;
  if (!expected)
    return recorded ? 'the state record carries a term the vault output has none of' : null;
  if (!recorded) return "the state record does not carry the vault output's term";
  if (
    recorded.settleHeight !== expected.settleHeight ||
    recorded.exitHeight !== expected.exitHeight
  )
    return "the state record's term is not the vault output's";
  return equalBytes(recorded.exitBranch, expected.exitBranch)
    ? null
    : "the state record's exit branch is not the vault output's";
}

/** The state record binds the quote and the request (docs/protocol.md, The state record). */
function checkStateRecord<A extends VaultAction>(input: GuardianCheckInput<A>): Refusal | null {
  const { state } = input.parsed;
  const { quote } = input;
  const commitmentProblem =
    quorumCommitmentProblem(state, quote) ?? termRecordProblem(state, input.term);
  return (
    mismatch(state.quotePriceCents, quote.price_cents, 'the recorded quote price') ??
    mismatch(state.thresholdCents, quote.th, 'the recorded threshold') ??
    mismatch(state.quoteStamp, quote.ts, 'the recorded quote stamp') ??
    mismatch(hex.encode(state.nonce), input.nonce.toLowerCase(), 'the recorded nonce') ??
    mismatch(state.expiry, input.expiresAt, 'the recorded expiry') ??
    // An opening records its vault's key (docs/protocol.md): the vault can be rebuilt from the chain.
    (state.action === 'o'
      ? mismatch(
          hex.encode(state.vaultPubkey ?? new Uint8Array()),
          input.vaultPubkey.toLowerCase(),
          'the recorded vault key',
        )
      : null) ??
    (commitmentProblem ? invalidTransaction(commitmentProblem) : null) ??
    // th_cents is the liquidation price after the action: the vault's leaf must open exactly there.
    mismatch(thresholdOfState(state), quote.th, 'the liquidation threshold of the new state')
  );
}

/** The liquidation price (cents) a state's collateral and debt give: its record's `th_cents`. */
export const thresholdOfState = (state: Pick<StateRecord, 'vaultSats' | 'unitDebt'>): number =>
  liquidationThresholdCents(sats(state.vaultSats), unitCents(state.unitDebt));

/** Every refusal the pure checks find first, in the order the guardian has always made them. */
export function guardianCheck<A extends VaultAction>(
  declaration: ActionDeclaration<A, never, VaultFields>,
  input: GuardianCheckInput<A>,
): Refusal | null {
  const stateRefusal = checkStateRecord(input);
  if (stateRefusal) return stateRefusal;
  const tx = input.parsed;
  for (const { moved, amount, what } of declaration.payloadAmounts(input.payload)) {
    const refusal = mismatch(moved === 'btc' ? tx.btcAmount : tx.unitAmount, amount, what);
    if (refusal) return refusal;
  }
  if (input.reservedUnit !== null && tx.unitAmount > input.reservedUnit)
    return {
      code: 'reservation_missing',
      message: 'The UNIT reservation is for a smaller amount',
    };
  const minimum = minimumsRefusal(declaration.shape, tx);
  if (minimum) return minimum;
  // api.ts tx_feerate: what the user chose, and never under 1 sat/vB.
  const feeRate = (input.payload as { tx_feerate: number }).tx_feerate;
  const required = feeFor(tx.vsize, Math.max(1, feeRate));
  if (tx.fee < required)
    return {
      code: 'fee_too_low',
      message: `The fee pays ${tx.fee} sats; ${required} are needed at ${feeRate} sat/vB`,
    };
  return ratioRefusal(declaration.shape, tx, input.quote.price_cents);
}

type RuleShape = ActionDeclaration['shape'];
type RuleState = Pick<ParsedVaultTransaction, 'btcAmount' | 'vaultSats' | 'state'>;

/**
 * The action's SPEC rules on the state it leaves, which need no request: the minimum BTC moved,
 * the vault's minimum balance and, for an action that must keep it, the collateral ratio at the
 * quote's price. The guardian checks them on every request; an open validator on every record.
 */
export const stateRulesRefusal = (
  shape: RuleShape,
  tx: RuleState,
  quotePriceCents: number,
): Refusal | null => minimumsRefusal(shape, tx) ?? ratioRefusal(shape, tx, quotePriceCents);

function minimumsRefusal(shape: RuleShape, tx: RuleState): Refusal | null {
  if (shape.minBtc && tx.btcAmount < BigInt(MIN_BTC_SATS))
    return {
      code: 'below_minimum',
      message: 'The amount is below the minimum of 0.00005 BTC',
    };
  if (tx.vaultSats < BigInt(MIN_VAULT_BALANCE_SATS))
    return {
      code: 'below_minimum',
      message: 'The vault would hold less than its minimum balance',
    };
  return null;
}

function ratioRefusal(shape: RuleShape, tx: RuleState, quotePriceCents: number): Refusal | null {
  // ARCHITECTURE.md: borrow and withdraw (and a vault taking on debt) stay at 160% or more at the
  // oracle's price; deposit and repay only raise the ratio.
  if (
    shape.keepsRatio &&
    !ratioAtLeast(
      sats(tx.vaultSats),
      unitCents(tx.state.unitDebt),
      quotePriceCents / 100,
      COLLATERAL_PERCENT,
    )
  )
    return {
      code: 'ratio_too_low',
      message: `This would leave the collateral ratio under ${COLLATERAL_PERCENT}%`,
    };
  return null;
}

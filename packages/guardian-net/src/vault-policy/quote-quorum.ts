// A guardian's check of a quote's price quorum ("A quote is valid only with at
// least t guardian prices, fresh and within the spread bound"). In network mode the app's oracle
// quotes the guardians' quorum: the quote carries the t or more signed guardian prices it is the
// median of, in id order, and its `time` is their oldest stamp. Each guardian checks that evidence
// itself, against the identity keys of the published set, before it reads its own price:
// - every price is signed by the set's guardian of that id, for this set's version;
// - at least t distinct guardians, in id order, none counted twice;
// - the prices were fresh together (none older than the protocol's 60 s before the newest) and none
//   stamped over 30 s ahead of this guardian's clock;
// - every price within the spread bound (3%) of their median, and the quote's price exactly that
//   median (so the state record's quote price, which guardianCheck holds to the quote's, is too);
// - the quote's stamp exactly their oldest stamp: a quote's age (300 s, checked with the envelope)
//   runs from its oldest price, so freshness is never overstated.
// The oracle's signature does not cover these prices: each carries its own guardian's signature.
import {
  GUARDIAN_PRICE_MAX_FUTURE_SECONDS,
  PRICE_MAX_SPREAD_BASIS_POINTS,
  priceQuorumProblem,
  type GuardianPricePoint,
} from '@unit/protocol';
import type { SignedQuote } from '@unit/protocol/wire';
import type { GuardianSetBody } from '../guardian-set';
import type { OwnPrice } from '../price/own-price';
import { signedPriceProblem } from '../price/signed-price';
import { Refused } from './reads';

/** What of the published set the check reads. */
export type QuorumSet = Pick<GuardianSetBody, 't' | 'version' | 'members'>;

/**
 * Why the quote's guardian prices do not make it the set's price quorum, or null. An open validator
 * asks the same of a record's quote price and stamp with the prices a guardian kept.
 */
export function quoteQuorumProblem(
  quote: Pick<SignedQuote, 'price_cents' | 'time' | 'quorum'>,
  set: QuorumSet,
  now: number,
): string | null {
  const prices = quote.quorum ?? [];
  if (prices.length === 0)
    return `the price quote carries no guardian prices (${set.t} of this set's guardians needed)`;
  for (let i = 1; i < prices.length; i++)
    if (prices[i]!.guardian <= prices[i - 1]!.guardian)
      return "the price quote's guardian prices are not in guardian order";
  for (const p of prices) {
    const problem = signedPriceProblem(set as GuardianSetBody, p);
    if (problem) return `guardian ${p.guardian}'s price in the quote: ${problem}`;
  }
  const stamps = prices.map((p) => p.time);
  const newest = Math.max(...stamps);
  if (newest - now > GUARDIAN_PRICE_MAX_FUTURE_SECONDS)
    return `a guardian price in the quote is stamped ${newest - now} s in the future`;
  const points: GuardianPricePoint[] = prices.map(({ guardian, priceCents, time }) => ({
    guardian,
    priceCents,
    time,
  }));
  // Fresh together: judged at the newest stamp. The quote's own age is the envelope's check.
  const problem = priceQuorumProblem(points, quote.price_cents, { t: set.t, now: newest });
  if (problem) return `the price quote is not a quorum of guardian prices: ${problem}`;
  const oldest = Math.min(...stamps);
  if (quote.time !== oldest)
    return `the price quote's stamp ${quote.time} is not its oldest guardian price's ${oldest}`;
  return null;
}

/** quoteQuorumProblem as the policy's refusal. */
export function checkQuoteQuorum(
  quote: SignedQuote,
  set: QuorumSet | undefined,
  now: number,
): void {
  if (!set) throw new Refused('this guardian has no published set to check the price quorum with');
  const problem = quoteQuorumProblem(quote, set, now);
  if (problem) throw new Refused(problem);
}

/** A price in dollars, for a refusal's sentence. */
export const usd = (cents: number | bigint) =>
  `$${(Number(cents) / 100).toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 })}`;

/** This guardian's own fresh price, and the quote within 3% of it. */
export function checkOwnPrice(own: OwnPrice | null, quoteCents: number): number {
  if (!own) throw new Refused('this guardian has no price feeds');
  if (!own.fresh) throw new Refused(`this guardian has no fresh price (${own.reason})`);
  const mine = BigInt(own.price.priceCents);
  const diff = BigInt(quoteCents) > mine ? BigInt(quoteCents) - mine : mine - BigInt(quoteCents);
  if (diff * 10_000n > BigInt(PRICE_MAX_SPREAD_BASIS_POINTS) * mine)
    throw new Refused(
      `the quote's price ${usd(quoteCents)} is more than ${PRICE_MAX_SPREAD_BASIS_POINTS / 100}% from this guardian's ${usd(mine)}`,
    );
  return own.price.priceCents;
}

// A guardian's check of a quote's guardian prices against the published set: what it accepts (the
// coordinator's own quorum of the same prices, for any pair or all three), and each refusal.
import { describe, expect, it } from 'vitest';
import type { SignedQuote } from '@unit/protocol/wire';
import { priceQuorum } from '@unit/protocol';
import { signPrice, type SignedPrice } from '../price/signed-price';
import { guardianPrice, IDENTITY_KEYS, NOW, QUORUM_SET } from '../../test/policy-chain';
import { keyOf } from '../../test/vault-requests';
import { quoteQuorumProblem } from './quote-quorum';

/** A quote as the app's oracle makes it from these prices: their median and oldest stamp. */
function quoteOf(prices: SignedPrice[], over: Partial<SignedQuote> = {}): SignedQuote {
  const q = priceQuorum(prices, { t: 2, now: NOW });
  if (!q.valid) throw new Error(q.reason);
  return {
    price_cents: q.priceCents,
    time: q.time,
    th: 0,
    ts: NOW,
    signature: '00'.repeat(64),
    quorum: q.used,
    ...over,
  };
}

const problem = (quote: SignedQuote, now = NOW) => quoteQuorumProblem(quote, QUORUM_SET, now);

describe("a quote's price quorum, as each guardian checks it", () => {
  it("accepts the coordinator's quorum of any t or more agreeing guardians, and stays valid as the quote ages", () => {
    const p1 = guardianPrice(1, 9_500_000, NOW - 20);
    const p2 = guardianPrice(2, 9_510_000, NOW - 5);
    const p3 = guardianPrice(3, 9_490_000, NOW);
    for (const prices of [
      [p1, p2],
      [p1, p3],
      [p2, p3],
      [p1, p2, p3],
    ]) {
      const quote = quoteOf(prices);
      expect(problem(quote)).toBeNull();
      // The evidence was fresh together; the quote's own 300 s are the envelope's check.
      expect(problem(quote, NOW + 240)).toBeNull();
    }
    // Even count: the mean of the middle two, rounded half up; the stamp is the oldest price's.
    expect(quoteOf([p1, p2])).toMatchObject({ price_cents: 9_505_000, time: NOW - 20 });
  });

  it('one guardian 10% off is left out of the quorum, and a quote on it alone is refused', () => {
    const low = guardianPrice(3, 8_550_000);
    const honest = quoteOf([guardianPrice(1, 9_500_000), guardianPrice(2, 9_500_000), low]);
    expect(honest.quorum!.map((p) => p.guardian)).toEqual([1, 2]);
    expect(problem(honest)).toBeNull();
    // A coordinator that slips the low price back in, or quotes it with one honest price.
    const padded = { ...honest, quorum: [...honest.quorum!, low] };
    expect(problem(padded)).toMatch(
      /^the price quote is not a quorum of guardian prices: guardian 3: 8550000 cents is more than 3% from the median 9500000$/,
    );
    const half = { ...honest, price_cents: 9_025_000, quorum: [honest.quorum![0]!, low] };
    expect(problem(half)).toMatch(/guardian \d: \d+ cents is more than 3% from the median/);
  });

  it('refuses fewer than t prices, none, one counted twice, or out of id order', () => {
    const p1 = guardianPrice(1, 9_500_000);
    const p2 = guardianPrice(2, 9_500_000);
    const quote = quoteOf([p1, p2]);
    expect(problem({ ...quote, quorum: [p1] })).toBe(
      'the price quote is not a quorum of guardian prices: 1 guardian prices, 2 needed',
    );
    const { quorum: _q, ...bare } = quote;
    expect(problem(bare)).toBe(
      "the price quote carries no guardian prices (2 of this set's guardians needed)",
    );
    expect(problem({ ...quote, quorum: [] })).toMatch(/carries no guardian prices/);
    expect(problem({ ...quote, quorum: [p1, p1] })).toBe(
      "the price quote's guardian prices are not in guardian order",
    );
    expect(problem({ ...quote, quorum: [p2, p1] })).toBe(
      "the price quote's guardian prices are not in guardian order",
    );
  });

  it('refuses a forged price: altered, signed by another key, for another set, or by a stranger', () => {
    const p1 = guardianPrice(1, 9_500_000);
    const p2 = guardianPrice(2, 9_500_000);
    const quote = quoteOf([p1, p2]);
    const altered = { ...p2, priceCents: 9_600_000 };
    expect(problem({ ...quote, quorum: [p1, altered] })).toBe(
      "guardian 2's price in the quote: price signature does not verify",
    );
    // Guardian 1's key signing a price in guardian 2's name (a single guardian making a quorum).
    const impostor = signPrice(IDENTITY_KEYS[0]!, { ...p2, guardian: 2 });
    expect(problem({ ...quote, quorum: [p1, impostor] })).toBe(
      "guardian 2's price in the quote: price signature does not verify",
    );
    const oldSet = signPrice(IDENTITY_KEYS[1]!, { ...p2, setVersion: 0 });
    expect(problem({ ...quote, quorum: [p1, oldSet] })).toBe(
      "guardian 2's price in the quote: signed for set version 0",
    );
    const stranger = signPrice(keyOf('stranger'), { ...p2, guardian: 4 });
    expect(problem({ ...quote, quorum: [p1, stranger] })).toBe(
      "guardian 4's price in the quote: guardian 4 is not in the set",
    );
  });

  it('refuses prices that were not fresh together, or stamped in the future', () => {
    const stale = guardianPrice(1, 9_500_000, NOW - 61);
    const p2 = guardianPrice(2, 9_500_000);
    const quote = { ...quoteOf([guardianPrice(1, 9_500_000), p2]), time: NOW - 61 };
    expect(problem({ ...quote, quorum: [stale, p2] })).toBe(
      'the price quote is not a quorum of guardian prices: guardian 1: price is 61 s old',
    );
    const ahead = [guardianPrice(1, 9_500_000, NOW + 31), guardianPrice(2, 9_500_000, NOW + 31)];
    expect(problem({ ...quote, time: NOW + 31, quorum: ahead })).toBe(
      'a guardian price in the quote is stamped 31 s in the future',
    );
  });

  it("refuses a quote whose price or stamp is not the evidence's median and oldest stamp", () => {
    const quote = quoteOf([guardianPrice(1, 9_500_000, NOW - 30), guardianPrice(2, 9_520_000)]);
    expect(problem({ ...quote, price_cents: quote.price_cents + 1 })).toBe(
      'the price quote is not a quorum of guardian prices: the quote is not the median 9510000',
    );
    // A newer stamp than the oldest price would stretch the quote's life.
    expect(problem({ ...quote, time: NOW })).toBe(
      `the price quote's stamp ${NOW} is not its oldest guardian price's ${NOW - 30}`,
    );
  });
});

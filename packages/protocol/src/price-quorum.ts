// The guardian network's price quorum: each guardian reads its own feeds and
// signs its own price; a quote is valid only with at least t guardian prices, each fresh and
// within the spread bound of their median, and the quote is that median. The same rules as the
// single oracle today: a live price older than two 30 s ticks is stale, and feed answers more
// than 3% apart make no price.

/** A guardian's price is fresh for two of today's 30 s price ticks (the oracle's stale rule). */
export const GUARDIAN_PRICE_MAX_AGE_SECONDS = 60;
/** How far ahead of the reader's clock a guardian's stamp may be (the message protocol's skew). */
export const GUARDIAN_PRICE_MAX_FUTURE_SECONDS = 30;
/** Prices more than 3% from their median are not one price (PRICE_MAX_SPREAD's default). */
export const PRICE_MAX_SPREAD_BASIS_POINTS = 300;

/** One guardian's signed price, as the quorum rule reads it. */
export interface GuardianPricePoint {
  guardian: number;
  /** USD cents per BTC */
  priceCents: number;
  /** unix seconds, the guardian's stamp */
  time: number;
}

export interface PriceQuorumRule {
  /** the set's threshold */
  t: number;
  /** unix seconds, the reader's clock */
  now: number;
  maxAgeSeconds?: number;
  maxSpreadBasisPoints?: number;
}

export type PriceQuorum<P extends GuardianPricePoint> =
  | {
      valid: true;
      priceCents: number;
      /** the oldest stamp among the prices used: the quote is as fresh as its oldest price */
      time: number;
      /** the prices the quote is the median of, by guardian id */
      used: P[];
      left: { guardian: number; reason: string }[];
    }
  | { valid: false; reason: string; left: { guardian: number; reason: string }[] };

const compare = (a: bigint, b: bigint) => (a < b ? -1 : a > b ? 1 : 0);

/**
 * The median of integer cents: the middle value, or for an even count the mean of the middle two
 * rounded half up (as the oracle combines its feeds). Throws on an empty list.
 */
export function medianCents(values: readonly number[]): number {
  if (values.length === 0) throw new Error('the median of no prices');
  const sorted = values.map(BigInt).sort(compare);
  const mid = sorted.length >> 1;
  return Number(
    sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]! + 1n) / 2n,
  );
}

/** Whether `cents` is within `basisPoints` of `median` (|cents - median| <= bp x median). */
export function withinSpread(cents: number, median: number, basisPoints: number): boolean {
  const distance = BigInt(cents) - BigInt(median);
  const abs = distance < 0n ? -distance : distance;
  return abs * 10_000n <= BigInt(basisPoints) * BigInt(median);
}

/** Why one price may not count, or null: a positive integer price with a fresh stamp. */
export function guardianPriceProblem(
  p: GuardianPricePoint,
  now: number,
  maxAgeSeconds = GUARDIAN_PRICE_MAX_AGE_SECONDS,
): string | null {
  if (!Number.isSafeInteger(p.priceCents) || p.priceCents <= 0)
    return 'price is not a positive number of cents';
  if (!Number.isSafeInteger(p.time)) return 'stamp is not a time';
  if (now - p.time > maxAgeSeconds) return `price is ${now - p.time} s old`;
  if (p.time - now > GUARDIAN_PRICE_MAX_FUTURE_SECONDS)
    return `price is stamped ${p.time - now} s in the future`;
  return null;
}

/**
 * The strict check of a quote's evidence as given (what a verifier of a committed quote runs):
 * null when `prices` are from at least t distinct guardians, each fresh and within the spread of
 * their median, and `priceCents` is that median; else why not.
 */
export function priceQuorumProblem(
  prices: readonly GuardianPricePoint[],
  priceCents: number,
  rule: PriceQuorumRule,
): string | null {
  const spread = rule.maxSpreadBasisPoints ?? PRICE_MAX_SPREAD_BASIS_POINTS;
  if (new Set(prices.map((p) => p.guardian)).size !== prices.length)
    return 'a guardian is counted twice';
  if (prices.length < rule.t) return `${prices.length} guardian prices, ${rule.t} needed`;
  for (const p of prices) {
    const problem = guardianPriceProblem(p, rule.now, rule.maxAgeSeconds);
    if (problem) return `guardian ${p.guardian}: ${problem}`;
  }
  const median = medianCents(prices.map((p) => p.priceCents));
  const outlier = prices.find((p) => !withinSpread(p.priceCents, median, spread));
  if (outlier)
    return `guardian ${outlier.guardian}: ${outlier.priceCents} cents is more than ${spread / 100}% from the median ${median}`;
  return priceCents === median ? null : `the quote is not the median ${median}`;
}

/**
 * The quote from every guardian price collected: stale and malformed prices are left out, then
 * prices outside the spread of the median of the rest, until every remaining price is within the
 * spread of their own median. Valid when at least t remain; the quote is their median.
 */
export function priceQuorum<P extends GuardianPricePoint>(
  prices: readonly P[],
  rule: PriceQuorumRule,
): PriceQuorum<P> {
  const spread = rule.maxSpreadBasisPoints ?? PRICE_MAX_SPREAD_BASIS_POINTS;
  const left: { guardian: number; reason: string }[] = [];
  const seen = new Set<number>();
  let used: P[] = [];
  for (const p of [...prices].sort((a, b) => a.guardian - b.guardian)) {
    const problem = seen.has(p.guardian)
      ? 'sent more than one price'
      : guardianPriceProblem(p, rule.now, rule.maxAgeSeconds);
    seen.add(p.guardian);
    if (problem) left.push({ guardian: p.guardian, reason: problem });
    else used.push(p);
  }
  // Each pass removes at least one price, so this ends within prices.length passes.
  while (used.length > 0) {
    const median = medianCents(used.map((p) => p.priceCents));
    const outside = used.filter((p) => !withinSpread(p.priceCents, median, spread));
    if (outside.length === 0) break;
    for (const p of outside)
      left.push({
        guardian: p.guardian,
        reason: `${p.priceCents} cents is more than ${spread / 100}% from the median ${median}`,
      });
    used = used.filter((p) => !outside.includes(p));
  }
  if (used.length < rule.t)
    return {
      valid: false,
      reason: `${used.length} guardian price${used.length === 1 ? '' : 's'} agree, ${rule.t} needed`,
      left,
    };
  return {
    valid: true,
    priceCents: medianCents(used.map((p) => p.priceCents)),
    time: Math.min(...used.map((p) => p.time)),
    used,
    left,
  };
}

// The coordinator's price quorum: it asks every guardian of the set for its signed price (a public
// GET, each with a time-out and a size cap), checks each signature against the published set,
// applies the protocol's rule and returns the quote with the signed prices it is the median of and
// the hash committing to them.
import { priceQuorum, type PriceQuorumRule } from '@unit/protocol';
import type { GuardianSetBody, Member } from '../guardian-set';
import {
  parseSignedPrice,
  priceQuorumCommitment,
  signedPriceProblem,
  type SignedPrice,
} from './signed-price';
import { readCapped } from '../read-capped';

export const PRICE_PATH = '/v1/price';
/** The same price after a round of the guardian's feeds begun on this request (own-price.ts). */
export const FRESH_PRICE_PATH = '/v1/price?fresh=1';
/** A signed price is about 250 bytes. */
const MAX_PRICE_ANSWER_BYTES = 4 * 1024;

export type GuardianPriceAnswer =
  | { guardian: number; price: SignedPrice; error?: undefined; noPrice?: undefined }
  | {
      guardian: number;
      price?: undefined;
      error: string;
      /** the guardian itself answered that it has no fresh price (`503 no-price`) */
      noPrice?: true;
    };

/** A guardian's own answer that it has no fresh price (not a failure to reach it). */
class NoPriceAnswer extends Error {}

export type PriceQuote =
  | {
      valid: true;
      priceCents: number;
      /** the oldest stamp among the prices used, unix seconds */
      time: number;
      /** the t or more signed prices the quote is the median of */
      prices: SignedPrice[];
      /** tagged SHA-256 of those prices: what the vault's state record will commit to */
      commitment: string;
      answers: GuardianPriceAnswer[];
      left: { guardian: number; reason: string }[];
    }
  | {
      valid: false;
      reason: string;
      answers: GuardianPriceAnswer[];
      left: { guardian: number; reason: string }[];
    };

/** One guardian's signed price, checked against the set; throws with a short reason. */
export async function fetchGuardianPrice(
  set: GuardianSetBody,
  member: Member,
  timeoutMs: number,
  fresh = false,
): Promise<SignedPrice> {
  const res = await fetch(member.url + (fresh ? FRESH_PRICE_PATH : PRICE_PATH), {
    headers: { accept: 'application/json' },
    signal: AbortSignal.timeout(timeoutMs),
  });
  const text = await readCapped(res, MAX_PRICE_ANSWER_BYTES);
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new Error(`non-JSON answer (HTTP ${res.status})`);
  }
  const err = (json as { error?: { code?: unknown; message?: unknown } } | null)?.error;
  if (!res.ok) {
    const message = err?.message ? String(err.message) : `HTTP ${res.status}`;
    throw err?.code === 'no-price' ? new NoPriceAnswer(message) : new Error(message);
  }
  const price = parseSignedPrice(json);
  if (price.guardian !== member.id)
    throw new Error(`answered with guardian ${price.guardian}'s price`);
  const problem = signedPriceProblem(set, price);
  if (problem) throw new Error(problem);
  return price;
}

function describe(e: unknown, timeoutMs: number): string {
  const err = e as Error & { cause?: { code?: string } };
  if (err.name === 'TimeoutError' || err.name === 'AbortError')
    return `no answer within ${timeoutMs} ms`;
  if (err.cause?.code) return `unreachable (${err.cause.code})`;
  return err.message;
}

/**
 * Asks every guardian at once and applies the protocol's quorum rule to the answers; `fresh`: each
 * guardian reads its feeds first (the market just moved).
 */
export async function collectPriceQuorum(
  set: GuardianSetBody,
  options: {
    timeoutMs?: number;
    now?: number;
    maxSpreadBasisPoints?: number;
    fresh?: boolean;
  } = {},
): Promise<PriceQuote> {
  const timeoutMs = options.timeoutMs ?? 5_000;
  const answers: GuardianPriceAnswer[] = await Promise.all(
    set.members.map(async (m) => {
      try {
        return {
          guardian: m.id,
          price: await fetchGuardianPrice(set, m, timeoutMs, options.fresh),
        };
      } catch (e) {
        const error = describe(e, timeoutMs);
        return e instanceof NoPriceAnswer
          ? { guardian: m.id, error, noPrice: true as const }
          : { guardian: m.id, error };
      }
    }),
  );
  const rule: PriceQuorumRule = {
    t: set.t,
    // After the answers: a fresh read's stamps may be later than the ask.
    now: options.now ?? Math.floor(Date.now() / 1000),
    ...(options.maxSpreadBasisPoints === undefined
      ? {}
      : { maxSpreadBasisPoints: options.maxSpreadBasisPoints }),
  };
  const prices = answers.flatMap((a) => (a.price ? [a.price] : []));
  const q = priceQuorum(prices, rule);
  const unanswered = answers.flatMap((a) =>
    a.error ? [{ guardian: a.guardian, reason: a.error }] : [],
  );
  const left = [...unanswered, ...q.left].sort((a, b) => a.guardian - b.guardian);
  if (!q.valid) return { valid: false, reason: q.reason, answers, left };
  return {
    valid: true,
    priceCents: q.priceCents,
    time: q.time,
    prices: q.used,
    commitment: priceQuorumCommitment(q.used),
    answers,
    left,
  };
}

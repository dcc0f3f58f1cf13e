// The coordinator's price quorum: it asks every guardian of the set for its signed price (a public
// GET, or the coordinator's `price/fresh` message; each with a time-out and a size cap), checks
// each signature against the published set, applies the protocol's rule and returns the quote with
// the signed prices it is the median of and the hash committing to them.
import { priceQuorum, type PriceQuorumRule } from '@unit/protocol';
import type { GuardianSetBody, Member } from '../guardian-set';
import {
  parseSignedPrice,
  priceQuorumCommitment,
  signedPriceProblem,
  type SignedPrice,
} from './signed-price';
import { DEFAULT_GRACE_MS, fanOut } from '../fan-out';
import type { Identity } from '../identity';
import { readPublic } from '../public-read';
import { callParty, RemoteError } from '../transport';
import { MIN_FRESH_READ_MS } from './own-price';

export const PRICE_PATH = '/v1/price';
/**
 * The coordinator's signed request for a price from a round of the guardian's feeds begun after
 * it (own-price.ts `readFresh`): a message, never a public route, so only a coordinator of the set
 * makes a guardian read its exchanges out of turn.
 */
export const FRESH_PRICE_MESSAGE = 'price/fresh';
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

/** An answer's signed price, checked against the set and the member asked. */
function checkedPrice(set: GuardianSetBody, member: Member, json: unknown): SignedPrice {
  const price = parseSignedPrice(json);
  if (price.guardian !== member.id)
    throw new Error(`answered with guardian ${price.guardian}'s price`);
  const problem = signedPriceProblem(set, price);
  if (problem) throw new Error(problem);
  return price;
}

/** One guardian's signed price (GET /v1/price), checked against the set; throws with a short reason. */
export async function fetchGuardianPrice(
  set: GuardianSetBody,
  member: Member,
  signal: AbortSignal,
  timeoutMs: number,
): Promise<SignedPrice> {
  const res = await readPublic(member, PRICE_PATH, {
    timeoutMs,
    maxBytes: MAX_PRICE_ANSWER_BYTES,
    signal,
  });
  const json = res.body;
  if (json === null) throw new Error(`non-JSON answer (HTTP ${res.status})`);
  const err = (json as { error?: { code?: unknown; message?: unknown } } | null)?.error;
  if (!res.ok) {
    const message = err?.message ? String(err.message) : `HTTP ${res.status}`;
    throw err?.code === 'no-price' ? new NoPriceAnswer(message) : new Error(message);
  }
  return checkedPrice(set, member, json);
}

/**
 * One guardian's price from a round of its feeds begun after this request, asked by a coordinator
 * of the set (a MAC'd `price/fresh` message): the market just moved.
 */
export async function fetchFreshGuardianPrice(
  set: GuardianSetBody,
  member: Member,
  coordinator: Identity,
  timeoutMs: number,
): Promise<SignedPrice> {
  try {
    const { payload } = await callParty({
      url: member.url,
      identity: coordinator,
      to: member.identityKey,
      setVersion: set.version,
      type: FRESH_PRICE_MESSAGE,
      body: {},
      timeoutMs,
      auth: 'mac',
    });
    return checkedPrice(set, member, payload.body);
  } catch (e) {
    if (e instanceof RemoteError && e.code === 'no-price') throw new NoPriceAnswer(e.message);
    throw e;
  }
}

function describe(e: unknown, timeoutMs: number): string {
  const err = e as Error & { cause?: { code?: string } };
  if (err.name === 'TimeoutError' || err.name === 'AbortError')
    return `no answer within ${timeoutMs} ms`;
  if (err.cause?.code) return `unreachable (${err.cause.code})`;
  return err.message;
}

/**
 * Asks every guardian at once and applies the protocol's quorum rule to the answers: the first t
 * signed prices plus a short grace (fan-out.ts), so a guardian that holds its connection costs the
 * grace, not the time-out. `freshAs`: the coordinator's identity; each guardian first reads its
 * feeds, at this coordinator's authenticated request (the market just moved).
 */
export async function collectPriceQuorum(
  set: GuardianSetBody,
  options: {
    timeoutMs?: number;
    graceMs?: number;
    now?: number;
    maxSpreadBasisPoints?: number;
    freshAs?: Identity;
  } = {},
): Promise<PriceQuote> {
  const { freshAs } = options;
  // A fresh read may wait for the guardian's spacing of reads on demand before its round.
  const timeoutMs = (options.timeoutMs ?? 5_000) + (freshAs ? MIN_FRESH_READ_MS : 0);
  const noPrice = new Set<number>();
  const asked = await fanOut(
    set.members,
    (m, signal) =>
      (freshAs
        ? fetchFreshGuardianPrice(set, m, freshAs, timeoutMs)
        : fetchGuardianPrice(set, m, signal, timeoutMs)
      ).catch((e: unknown) => {
        if (e instanceof NoPriceAnswer) noPrice.add(m.id);
        throw e;
      }),
    {
      need: set.t,
      timeoutMs,
      graceMs: options.graceMs ?? DEFAULT_GRACE_MS,
      reasonOf: (e) => describe(e, timeoutMs),
    },
  );
  const answers: GuardianPriceAnswer[] = asked.map((a, i) => {
    const guardian = set.members[i]!.id;
    if (a.ok) return { guardian, price: a.value };
    return noPrice.has(guardian)
      ? { guardian, error: a.reason, noPrice: true as const }
      : { guardian, error: a.reason };
  });
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

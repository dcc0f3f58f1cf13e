// The signed prices behind each quorum this guardian approved, kept in its own directory and served
// to anyone (docs/protocol.md, "The guardians publish the signed prices"). A network-mode state
// record carries only the hash of its quote's signed prices; so that an open validator can check a
// record without the app's database, every guardian that approves a request keeps its quote's
// prices under that hash, as a file of its own directory (`prices/<commitment>.json`), before it
// approves. A guardian that cannot keep them refuses: a record nobody can check is never signed.
// The route reads one file by a 64-hex name, at most KEPT_PRICES_MAX_BYTES: cheap and bounded.
import { existsSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { priceQuorumCommitment, parseSignedPrice, type SignedPrice } from './signed-price';

/** GET /v1/prices/<commitment>: the signed prices a record's 32-byte commitment hashes. */
export const KEPT_PRICES_PATH = '/v1/prices/';
export const KEPT_PRICES_DIR = 'prices';
/** A quote carries at most 64 prices, each under 200 bytes of JSON. */
export const KEPT_PRICES_MAX_PRICES = 64;
export const KEPT_PRICES_MAX_BYTES = 16_384;
const COMMITMENT = /^[0-9a-f]{64}$/;

export interface KeptQuorum {
  /** 64 hex: priceQuorumCommitment(prices) */
  commitment: string;
  /** the signed prices in guardian id order, exactly as hashed */
  prices: SignedPrice[];
}

/** The signed prices a vault request's quote carries (`context.request.quote.quorum`), if any. */
export function quorumOfContext(context: unknown): SignedPrice[] | null {
  const quote = (context as { request?: { quote?: { quorum?: unknown } } } | null)?.request?.quote;
  const quorum = quote?.quorum;
  if (!Array.isArray(quorum) || quorum.length === 0) return null;
  if (quorum.length > KEPT_PRICES_MAX_PRICES)
    throw new Error(`a quote carries at most ${KEPT_PRICES_MAX_PRICES} prices`);
  return quorum.map(parseSignedPrice).sort((a, b) => a.guardian - b.guardian);
}

const fileOf = (dir: string, commitment: string) =>
  join(dir, KEPT_PRICES_DIR, `${commitment}.json`);

/** Keeps `prices` under their commitment (written once: a file kept before stays). */
export function keepQuorum(dir: string, prices: readonly SignedPrice[]): string {
  const commitment = priceQuorumCommitment(prices);
  const path = fileOf(dir, commitment);
  if (existsSync(path)) return commitment;
  mkdirSync(join(dir, KEPT_PRICES_DIR), { recursive: true, mode: 0o755 });
  const sorted = [...prices].sort((a, b) => a.guardian - b.guardian);
  const body: KeptQuorum = { commitment, prices: sorted };
  // Whole or not at all: a file a crash cut short is never served.
  const partial = `${path}.${process.pid}.partial`;
  writeFileSync(partial, JSON.stringify(body), { mode: 0o644 });
  renameSync(partial, path);
  return commitment;
}

/** The quorum kept under `commitment`, or null when this guardian kept none (or not a hash). */
export function readKeptQuorum(dir: string, commitment: string): KeptQuorum | null {
  if (!COMMITMENT.test(commitment)) return null;
  const path = fileOf(dir, commitment);
  if (!existsSync(path) || statSync(path).size > KEPT_PRICES_MAX_BYTES) return null;
  return JSON.parse(readFileSync(path, 'utf8')) as KeptQuorum;
}

export type Decision = { approve: true } | { approve: false; reason: string };

/**
 * An approval stands only once its quote's prices are kept; a refusal keeps nothing. The node calls
 * it with each of its decisions (node.ts).
 */
export function keepApproved(dir: string, context: unknown, decision: Decision): Decision {
  if (!decision.approve) return decision;
  try {
    const prices = quorumOfContext(context);
    if (prices) keepQuorum(dir, prices);
    return decision;
  } catch (error) {
    return {
      approve: false,
      reason: `this guardian could not keep the quote's signed prices in its directory (${(error as Error).message}), so it signs nothing a validator could not check`,
    };
  }
}

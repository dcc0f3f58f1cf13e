// The state record's commitment to the price quorum (docs/protocol.md, "The state record's
// commitment to the quorum"): `taggedHash("unit/price-quorum", canonical JSON of the quote's signed
// guardian prices in id order)`. Written once here, where the web, the app's guardian and the
// guardian network's policy all read it; @unit/guardian-net's `priceQuorumCommitment` is this hash.
import { sha256 } from '@noble/hashes/sha2.js';

export const PRICE_QUORUM_TAG = 'unit/price-quorum';

/** One guardian's signed price as a quote's `quorum` carries it (GET /v1/price of the guardian). */
export interface QuorumPrice {
  guardian: number;
  setVersion: number;
  priceCents: number;
  time: number;
  /** BIP-340 hex */
  sig: string;
}

function safeInteger(value: number, field: string): number {
  if (!Number.isSafeInteger(value)) throw new Error(`quorum price ${field} must be an integer`);
  return value;
}

/**
 * Canonical JSON of one price: keys sorted (guardian, priceCents, setVersion, sig, time), integers
 * and a hex string only, no spaces; the same text @unit/guardian-net's `canonicalJson` writes.
 */
function canonicalPrice(p: QuorumPrice): string {
  return (
    `{"guardian":${safeInteger(p.guardian, 'guardian')},` +
    `"priceCents":${safeInteger(p.priceCents, 'priceCents')},` +
    `"setVersion":${safeInteger(p.setVersion, 'setVersion')},` +
    `"sig":${JSON.stringify(p.sig)},` +
    `"time":${safeInteger(p.time, 'time')}}`
  );
}

/** BIP-340 tagged hash: sha256(sha256(tag) || sha256(tag) || body). */
function taggedHash(tag: string, body: Uint8Array): Uint8Array {
  const t = sha256(new TextEncoder().encode(tag));
  const out = new Uint8Array(64 + body.length);
  out.set(t, 0);
  out.set(t, 32);
  out.set(body, 64);
  return sha256(out);
}

/**
 * The 32 bytes a network-mode state record ends with: the hash of the signed prices the quote is
 * the median of, in guardian id order (sorted here, whatever order they come in), signatures
 * included, so the record names exactly which guardians' prices made the quote.
 */
export function priceQuorumCommitment(prices: readonly QuorumPrice[]): Uint8Array {
  const list = [...prices].sort((a, b) => a.guardian - b.guardian).map(canonicalPrice);
  return taggedHash(PRICE_QUORUM_TAG, new TextEncoder().encode(`[${list.join(',')}]`));
}

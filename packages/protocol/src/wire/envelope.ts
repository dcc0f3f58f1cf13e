// The one request envelope (SignedVaultRequest) every caller builds a vault.* request with: the
// nonce and expiry are drawn first (the state record in the transaction commits to them), then the
// wallet signs the PSBT and the envelope carries it with the quote and the reservation.
import type { SignedQuote, SignedVaultRequest } from './guardian';

/** Signed requests stay valid this long: enough to sign on a hardware wallet. */
export const REQUEST_LIFETIME_SECONDS = 300;

/** What the transaction's state record commits to before the PSBT is built. */
export interface EnvelopeDraft {
  /** 16 random bytes */
  nonce: Uint8Array;
  /** unix seconds */
  expiresAt: number;
}

export function draftEnvelope(
  now: number,
  lifetimeSeconds: number = REQUEST_LIFETIME_SECONDS,
  random: (bytes: number) => Uint8Array = (bytes) =>
    globalThis.crypto.getRandomValues(new Uint8Array(bytes)),
): EnvelopeDraft {
  return { nonce: random(16), expiresAt: now + lifetimeSeconds };
}

const toHex = (bytes: Uint8Array) =>
  Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('');

export interface VaultRequestParts<P> {
  draft: EnvelopeDraft;
  payload: P;
  vaultPubkey: string;
  /** the oracle quote the state record was built on (extra fields, as /api/oracle/quote has, are dropped) */
  quote: SignedQuote;
  reservationId?: string | null;
  /** base64 PSBT as built, unsigned */
  psbt: string;
  /** the wallet: signs its own inputs of the base64 PSBT and answers it base64 */
  sign(psbt: string): Promise<string> | string;
}

/** The envelope's fields besides the payload, the PSBT and the reservation. */
export function envelopeFields(
  parts: Pick<VaultRequestParts<unknown>, 'draft' | 'vaultPubkey' | 'quote'>,
): Omit<SignedVaultRequest<unknown>, 'payload' | 'psbt' | 'reservation_id'> {
  const { price_cents, time, th, ts, signature, quorum, term } = parts.quote;
  return {
    vault_pubkey: parts.vaultPubkey,
    nonce: toHex(parts.draft.nonce),
    expires_at: parts.draft.expiresAt,
    // The guardians' prices go with the quote in network mode (they check them); none otherwise.
    // Layout 2: the term the new vault output commits to (each guardian checks it against its tip).
    quote: {
      price_cents,
      time,
      th,
      ts,
      signature,
      ...(quorum ? { quorum } : {}),
      ...(term ? { term } : {}),
    },
  };
}

/** Has the wallet sign the PSBT and wraps it in the envelope the guardian checks. */
export async function signVaultRequest<P>(
  parts: VaultRequestParts<P>,
): Promise<SignedVaultRequest<P>> {
  const psbt = await parts.sign(parts.psbt);
  return {
    payload: parts.payload,
    ...envelopeFields(parts),
    psbt,
    ...(parts.reservationId ? { reservation_id: parts.reservationId } : {}),
  };
}

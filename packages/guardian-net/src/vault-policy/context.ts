// The `context` of a `sign/propose` for one fixed input of a vault request (contract.md, "The
// sign/propose context of a vault input"), and the oracle quote's signature. Parsed before anything
// else is read: a context over its size cap, or of the wrong shape, costs the guardian nothing more.
import { schnorr } from '@noble/curves/secp256k1.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { concatBytes, hexToBytes } from '@noble/hashes/utils.js';
import * as z from 'zod';
import {
  nonceSchema,
  signedRequestSchema,
  speedUpRequestSchema,
  vaultActionSchema,
  type SignedQuote,
} from '@unit/protocol/wire';

/** A vault request is a PSBT of a few KB; the envelope (64 KiB) already bounds the message. */
export const MAX_CONTEXT_BYTES = 48 * 1024;

export const vaultInputContextSchema = z.object({
  kind: z.literal('vault-input'),
  action: vaultActionSchema,
  request: signedRequestSchema(z.unknown()),
  input: z.number().int().min(0).max(15),
  role: z.enum(['vault', 'treasury', 'liquidation']),
  secret: z
    .string()
    .regex(/^([0-9a-f]{2}){32}$/i)
    .optional(),
});
export type VaultInputContext = z.infer<typeof vaultInputContextSchema>;

/**
 * A speed-up's session (apps/server/src/cosign/speedup.ts): a BIP-125 replacement of a vault
 * transaction still in the mempool, as its own request. `request` is the wallet's vault.speedup
 * params with the replaced action and the original request's nonce; the role is the action's.
 */
export const speedUpContextSchema = z.object({
  kind: z.literal('vault-input'),
  action: z.literal('speedup'),
  request: speedUpRequestSchema.extend({
    action: vaultActionSchema,
    original_nonce: nonceSchema,
  }),
  input: vaultInputContextSchema.shape.input,
  role: vaultInputContextSchema.shape.role,
  secret: vaultInputContextSchema.shape.secret,
});
export type SpeedUpContext = z.infer<typeof speedUpContextSchema>;

/** The context, or why it is not one a guardian reads. */
export function parseVaultInputContext(
  context: unknown,
): { ok: true; value: VaultInputContext | SpeedUpContext } | { ok: false; reason: string } {
  let size: number;
  try {
    size = JSON.stringify(context ?? null).length;
  } catch {
    return { ok: false, reason: 'the request context is not JSON' };
  }
  if (size > MAX_CONTEXT_BYTES)
    return { ok: false, reason: `the request context is over ${MAX_CONTEXT_BYTES} bytes` };
  const speedUp = (context as { action?: unknown } | null)?.action === 'speedup';
  const parsed = (speedUp ? speedUpContextSchema : vaultInputContextSchema).safeParse(context);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return {
      ok: false,
      reason: `the request context is malformed (${issue?.path.join('.') || 'context'}: ${issue?.message ?? 'invalid'})`,
    };
  }
  return { ok: true, value: parsed.data };
}

const QUOTE_TAG = new TextEncoder().encode('unit/quote');

function uintBe(value: number | bigint, bytes: 4 | 8): Uint8Array {
  const out = new Uint8Array(bytes);
  const view = new DataView(out.buffer);
  if (bytes === 8) view.setBigUint64(0, BigInt(value));
  else view.setUint32(0, Number(value));
  return out;
}

/**
 * The oracle's quote digest, byte for byte the app's (apps/server/src/oracle/keys.ts):
 * sha256("unit/quote" || u64be(price_cents) || u32be(time) || u64be(th) || u32be(ts)).
 */
export function quoteDigest(q: Omit<SignedQuote, 'signature'>): Uint8Array {
  return sha256(
    concatBytes(
      QUOTE_TAG,
      uintBe(q.price_cents, 8),
      uintBe(q.time, 4),
      uintBe(q.th, 8),
      uintBe(q.ts, 4),
    ),
  );
}

/** Whether `quote` carries the oracle's BIP-340 signature. */
export function quoteSignedBy(oraclePubkey: string, quote: SignedQuote): boolean {
  try {
    return schnorr.verify(
      hexToBytes(quote.signature),
      quoteDigest(quote),
      hexToBytes(oraclePubkey),
    );
  } catch {
    return false;
  }
}

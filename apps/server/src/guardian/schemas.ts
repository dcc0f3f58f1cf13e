// zod schemas of every guardian RPC params object (packages/protocol/src/api.ts): the edge refuses
// malformed requests with 'bad_request' before any rule runs.
import * as z from 'zod';
import { VAULT_NAME_MAX_LENGTH, validateVaultName } from '@unit/protocol';

const hexOf = (bytes: number) =>
  z
    .string()
    .length(bytes * 2)
    .regex(/^[0-9a-fA-F]+$/, 'must be hex');

/** A whole amount in sats or UNIT hundredths, exact as a JS number. */
const amount = z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER);
const positiveAmount = amount.positive();
/** sat/vB; the guardian also requires at least 1 (api.ts tx_feerate). */
const feeRate = z.number().finite().positive().max(100_000);
const unixSeconds = z.number().int().nonnegative().max(0xffff_ffff);

export const pubkeySchema = hexOf(32);
export const nonceSchema = hexOf(16);

const quoteSchema = z.object({
  price_cents: positiveAmount,
  time: unixSeconds,
  th: amount,
  ts: unixSeconds,
  signature: hexOf(64),
});

/** The common envelope of every vault.* request (SignedVaultRequest). */
function signedRequest<P extends z.ZodType>(payload: P) {
  return z.object({
    payload,
    vault_pubkey: pubkeySchema,
    // A vault PSBT is a few kilobytes; the cap keeps a hostile one from costing parse time.
    psbt: z
      .string()
      .min(1)
      .max(200_000)
      .regex(/^[A-Za-z0-9+/]+={0,2}$/, 'must be base64'),
    nonce: nonceSchema,
    expires_at: unixSeconds,
    quote: quoteSchema,
    reservation_id: hexOf(16).optional(),
  });
}

export const reserveSchema = z.object({
  unit_amount: amount,
  vault_action: z.enum(['open', 'borrow', 'repay']),
  vault_pubkey: pubkeySchema,
});

export const openSchema = signedRequest(
  z.object({
    borrow_amount: positiveAmount,
    deposit_amount: positiveAmount,
    vault_label: z
      .string()
      .trim()
      .min(1)
      .max(VAULT_NAME_MAX_LENGTH * 2)
      .refine((name) => validateVaultName(name) === null, 'vault name too long'),
    tx_feerate: feeRate,
  }),
);

export const depositSchema = signedRequest(
  z.object({ deposit_amount: positiveAmount, tx_feerate: feeRate }),
);

export const withdrawSchema = signedRequest(
  z.object({ change_amount: positiveAmount, tx_feerate: feeRate }),
);

export const borrowSchema = signedRequest(
  z.object({ borrow_amount: positiveAmount, deposit_amount: z.literal(0), tx_feerate: feeRate }),
);

export const repaySchema = signedRequest(
  z.object({ repay_amount: positiveAmount, deposit_amount: z.literal(0), tx_feerate: feeRate }),
);

export const repossessSchema = signedRequest(
  z.object({ liquidated_vault_id: hexOf(32), tx_feerate: feeRate }),
);

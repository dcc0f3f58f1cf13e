// The field shapes the wire contract is made of: hex of a length, whole amounts exact as JS
// numbers, unix seconds, fee rates, and the enumerations the server and the web app share.
import * as z from 'zod';
import { ERROR_CODES } from './codes';

/** `bytes` bytes as hex, either case. */
export const hexOf = (bytes: number) =>
  z
    .string()
    .length(bytes * 2)
    .regex(/^[0-9a-fA-F]+$/, 'must be hex');

/** A whole amount in sats or UNIT hundredths, exact as a JS number. */
export const amount = z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER);
export const positiveAmount = amount.positive();
/** sat/vB; the guardian also requires at least 1 (tx_feerate). */
export const feeRate = z.number().finite().positive().max(100_000);
export const unixSeconds = z.number().int().nonnegative().max(0xffff_ffff);

export const pubkeySchema = hexOf(32);
export const nonceSchema = hexOf(16);
export const txidSchema = z.string().regex(/^[0-9a-fA-F]{64}$/, 'must be a txid');
/** A base64 PSBT. A vault PSBT is a few kilobytes; the cap keeps a hostile one from costing parse time. */
export const psbtSchema = z
  .string()
  .min(1)
  .max(200_000)
  .regex(/^[A-Za-z0-9+/]+={0,2}$/, 'must be base64');

export const networkSchema = z.enum(['devnet', 'signet', 'mutinynet', 'mainnet']);
export type Network = z.infer<typeof networkSchema>;

export const vaultActionSchema = z.enum([
  'open',
  'deposit',
  'withdraw',
  'borrow',
  'repay',
  'repossess',
]);
export type VaultAction = z.infer<typeof vaultActionSchema>;

/** SPEC §3 history action codes. */
export const actionCodeSchema = z.enum(['o', 'b', 'd', 'r', 'w', 'l', 'x', 's', 'e']);
export type ActionCode = z.infer<typeof actionCodeSchema>;

export const timePeriodSchema = z.enum(['24h', '7d', '30d', '1y']);
export type TimePeriod = z.infer<typeof timePeriodSchema>;

/** Every code of every error body of /api and every guardian RPC error's data. */
export const errorCodeSchema = z.enum(ERROR_CODES);
export type ErrorCode = z.infer<typeof errorCodeSchema>;

/** Every error body of /api and every guardian RPC error's data. */
export const apiErrorSchema = z.object({ error: z.string(), code: errorCodeSchema });
export type ApiErrorDto = z.infer<typeof apiErrorSchema>;

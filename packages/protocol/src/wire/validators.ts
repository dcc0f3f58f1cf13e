// GET /api/network's report on the open validators the server compares its ledger with.
import * as z from 'zod';
import { unixSeconds } from './fields';

const int = z.number().int();

/**
 * An open validator this server is configured with (UNIT_VALIDATORS) and whether its ledger digest
 * is the app's at a height both have read: `agrees` / `disagrees` at `height`, or `unreachable`
 * (it did not answer in time, or not as a validator; `problem` says which).
 */
export const networkValidatorSchema = z.object({
  url: z.string().max(300),
  state: z.enum(['agrees', 'disagrees', 'unreachable']),
  /** the height compared, or null when unreachable */
  height: int.nullable(),
  /** the validator's digest and the app's at `height` (64 hex), or null */
  digest: z.string().nullable(),
  app_digest: z.string().nullable(),
  problem: z.string().max(300).nullable(),
  /** when it was asked, unix seconds */
  checked_at: unixSeconds,
});
export type NetworkValidatorDto = z.infer<typeof networkValidatorSchema>;
/** A server asks at most this many validators. */
export const NETWORK_VALIDATORS_MAX = 16;

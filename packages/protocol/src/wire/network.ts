// GET /api/network's answer: the guardian set this server coordinates, each guardian's health,
// the sets still signing after a rotation, the last exclusions, the set's history and the open
// validators' verdicts. Read by the web app's /network page.
import * as z from 'zod';
import { unixSeconds } from './fields';
import { networkHistoryEntrySchema } from './network-history';
import { NETWORK_VALIDATORS_MAX, networkValidatorSchema } from './validators';

const int = z.number().int();
const nullableString = z.string().nullable();

/** One guardian as GET /api/network shows it: read from its own /v1/health. */
export const networkGuardianSchema = z.object({
  id: int,
  name: z.string(),
  /** The first 8 bytes of its identity key, hex, e.g. "3f2a9c01d4e5b6a7". */
  fingerprint: z.string(),
  /** Answered its /v1/health within the time-out just now. */
  online: z.boolean(),
  /** Its own last signed price; null when it has none (or is offline). */
  last_price: z.object({ cents: int, time: unixSeconds }).nullable(),
  /** When it last gave a signature share, unix seconds; null since its start. */
  last_signature_at: unixSeconds.nullable(),
  version: nullableString,
  uptime_seconds: int.nullable(),
  /**
   * Set when the server's local network stopped restarting it (its starts kept failing, e.g. its
   * directory was lost): a sentence saying so; the server's log says why. It stays down until
   * its operator restores it.
   */
  stopped: z.string().max(2_000).nullish(),
});
export type NetworkGuardianDto = z.infer<typeof networkGuardianSchema>;

/** An older guardian set on GET /api/network, with its members' health. */
export const networkSetSchema = z.object({
  set_version: int,
  threshold: int,
  size: int,
  /** x-only hex: guard_pubkey of the vaults still under this set. */
  group_key: z.string(),
  guardians: z.array(networkGuardianSchema),
});
export type NetworkSetDto = z.infer<typeof networkSetSchema>;

/**
 * A guardian the coordinator left out of one signing (robust signing, docs/guardian-network.md):
 * it stalled (no answer in time), sent a signature share that did not verify, refused, could not
 * be reached, or sent an unusable nonce commitment. The request itself went on without it.
 */
export const networkExclusionSchema = z.object({
  guardian_id: int,
  name: z.string().max(100),
  set_version: int,
  cause: z.enum(['stalled', 'bad-share', 'refused', 'unreachable', 'bad-commitment']),
  /** The coordinator's sentence of why, e.g. "its signature share did not verify (session 1)". */
  reason: z.string().max(300),
  at: unixSeconds,
});
export type NetworkExclusionDto = z.infer<typeof networkExclusionSchema>;

/** How many exclusions GET /api/network lists at most, newest first. */
export const RECENT_EXCLUSIONS_MAX = 20;

/** GET /api/network: the guardian set this server coordinates, and each guardian's health. */
export const guardianNetworkSchema = z.object({
  /** false when the server signs alone (GUARDIAN_NETWORK=off): then the list is empty. */
  enabled: z.boolean(),
  scheme: z.literal('FROST (RFC 9591, secp256k1, BIP-340)'),
  threshold: int,
  size: int,
  set_version: int,
  /** x-only hex: guard_pubkey in every new vault's leaves. */
  group_key: z.string(),
  guardians: z.array(networkGuardianSchema),
  /**
   * After a rotation, each older set still live (it signs the vaults that have not acted since,
   * and the treasury until it moves), newest first; empty before any rotation.
   */
  older_sets: z.array(networkSetSchema),
  /**
   * The last guardians this server left out of a signing, newest first, at most
   * RECENT_EXCLUSIONS_MAX, since it started (kept in memory); empty when it signs alone.
   */
  recent_exclusions: z.array(networkExclusionSchema).max(RECENT_EXCLUSIONS_MAX),
  /** Every published set of the chain, newest first: empty when the server signs alone. */
  history: z.array(networkHistoryEntrySchema),
  /** The open validators this server asks (UNIT_VALIDATORS), in configured order; absent: none. */
  validators: z.array(networkValidatorSchema).max(NETWORK_VALIDATORS_MAX).optional(),
  /** When this answer was read, unix seconds. */
  checked_at: unixSeconds,
});
export type GuardianNetworkDto = z.infer<typeof guardianNetworkSchema>;

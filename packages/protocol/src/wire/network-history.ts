// GET /api/network's history of the guardian sets (http.ts's guardianNetworkSchema carries it).
import * as z from 'zod';
import { unixSeconds } from './fields';

const int = z.number().int();

/**
 * One published guardian set in GET /api/network's `history`: what it changed from the set before
 * (docs/guardian-network.md, "The set's history on /network"). `created`: the first DKG; `rotation`:
 * a new group key; `reshare`: the same key with other members; `repair`: the same key and
 * verification shares (a lost share rebuilt, the seat's identity key new or not); `refresh`: the
 * same key and members, new shares.
 */
export const networkHistoryEntrySchema = z.object({
  set_version: int,
  change: z.enum(['created', 'rotation', 'reshare', 'repair', 'refresh']),
  /** the version this set replaced, or null for the first */
  replaces: int.nullable(),
  threshold: int,
  size: int,
  group_key: z.string(),
  members: z.array(
    z.object({ id: int, name: z.string().max(100), fingerprint: z.string().max(64) }),
  ),
  /** names of the members whose identity key the set before did not have, and of those it dropped */
  joined: z.array(z.string().max(100)),
  left: z.array(z.string().max(100)),
  /** unix seconds: when the server's guardian directory received this set's file, or null */
  published_at: unixSeconds.nullable(),
  /** whether its guardians still sign for it (a set replaced under the same key does not) */
  signing: z.boolean(),
});
export type NetworkHistoryEntryDto = z.infer<typeof networkHistoryEntrySchema>;

// The vaults the guardians settle at their term (docs/protocol.md, "Leaving without the guardians"):
// an active vault of layout 2 whose settlement height the chain's tip has reached.
import type { Kysely } from 'kysely';
import type { Database } from './schema';
import type { VaultRow } from './vaults';

/** Vaults read per round: each is a signing of its own, so a round stays short. */
export const SETTLEMENT_BATCH = 50;

/**
 * Active vaults whose term the chain at `tipHeight` has reached, the oldest term first (then by
 * id, so every round reads them in one order), at most `limit`.
 */
export function vaultsDueForSettlement(
  db: Kysely<Database>,
  tipHeight: number,
  limit = SETTLEMENT_BATCH,
): Promise<VaultRow[]> {
  return db
    .selectFrom('vaults')
    .selectAll()
    .where('status', '=', 'active')
    .where('settle_height', 'is not', null)
    .where('settle_height', '<=', tipHeight)
    .orderBy('settle_height')
    .orderBy('vault_id')
    .limit(Math.max(1, Math.min(limit, SETTLEMENT_BATCH)))
    .execute();
}

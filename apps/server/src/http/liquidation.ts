// GET /api/vaults/:vaultId/liquidation: the facts a liquidated vault's page needs beyond its
// history (the `l` and `x` records): which vault repossessed it, and the exact oracle price.
// GET /api/vaults/by-pubkey/:pubkey/closed: a key's repossessed vaults (docs/protocol.md, Keys: a
// key opens a new vault once its vault is closed), so the new vault's page can reach their outcome.
import type { FastifyInstance } from 'fastify';
import type { Kysely } from 'kysely';
import type { Database } from '../store/schema';
import { notFound } from './errors';
import { tableRoute } from './table-route';

/** Most closed vaults listed for one key: each took a liquidation and a repossess. */
const CLOSED_LIMIT = 20;

export function registerLiquidationRoutes(app: FastifyInstance, db: Kysely<Database>): void {
  tableRoute(app, 'vaultLiquidation', async ({ params: { vaultId } }) => {
    // One row per vault (vault_id is the key); the claimant joined by its own vault id.
    const row = await db
      .selectFrom('liquidations')
      .leftJoin('vaults as claimant', 'claimant.vault_id', 'liquidations.claimed_by')
      .select([
        'liquidations.vault_id',
        'liquidations.liquidated_at',
        'liquidations.threshold_cents',
        'liquidations.price_cents',
        'liquidations.btc_locked',
        'liquidations.unit_borrowed',
        'liquidations.status',
        'liquidations.claimed_by',
        'liquidations.claim_txid',
        'claimant.vault_tag as claimant_tag',
        'claimant.name as claimant_name',
      ])
      .where('liquidations.vault_id', '=', vaultId)
      .executeTakeFirst();
    if (!row) throw notFound('This vault was not liquidated');
    return {
      vault_id: row.vault_id,
      liquidated_at: Number(row.liquidated_at),
      threshold_cents: Number(row.threshold_cents),
      price_cents: Number(row.price_cents),
      btc_locked: Number(row.btc_locked),
      unit_borrowed: Number(row.unit_borrowed),
      status: row.status,
      claimant:
        row.claimed_by != null
          ? {
              vault_id: row.claimed_by,
              vault_tag: row.claimant_tag ?? row.claimed_by.slice(0, 8),
              name: row.claimant_name ?? '',
            }
          : null,
      claim_txid: row.claim_txid,
    };
  });

  tableRoute(app, 'closedVaults', async ({ params: { pubkey } }) => {
    const rows = await db
      .selectFrom('vaults')
      .select(['vault_id', 'vault_tag', 'name', 'created_at'])
      .where('vault_pubkey', '=', pubkey.toLowerCase())
      .where('status', '=', 'repossessed')
      .orderBy('created_at', 'desc')
      .limit(CLOSED_LIMIT)
      .execute();
    return rows.map((r) => ({ ...r, created_at: Number(r.created_at) }));
  });
}

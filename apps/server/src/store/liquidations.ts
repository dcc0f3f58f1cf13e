// Liquidated vaults (history action `l`) and their repossession (`x`).
import type { Insertable, Kysely, Selectable } from 'kysely';
import { oracleCount, type LiquidatedVaultDto } from '@unit/protocol';
import type { Database, LiquidationsTable } from './schema';
import { oracleHashesKey } from './settings';
import { rowWhere } from './rows';

export type LiquidationRow = Selectable<LiquidationsTable>;
export type NewLiquidation = Omit<
  Insertable<LiquidationsTable>,
  'status' | 'claimed_by' | 'claim_txid'
>;

/**
 * Records a liquidation and flips the vault to liquidated, atomically; false when the vault was
 * already recorded (the sweep runs on every tick and may meet the same vault twice).
 */
export async function recordLiquidation(
  db: Kysely<Database>,
  liquidation: NewLiquidation,
): Promise<boolean> {
  return db.transaction().execute(async (trx) => {
    const result = await trx
      .insertInto('liquidations')
      .values({ ...liquidation, status: 'liquidated' })
      .onConflict((oc) => oc.column('vault_id').doNothing())
      .executeTakeFirst();
    if (Number(result.numInsertedOrUpdatedRows ?? 0n) !== 1) return false;
    await trx
      .updateTable('vaults')
      .set({ status: 'liquidated', updated_at: liquidation.liquidated_at })
      .where('vault_id', '=', liquidation.vault_id)
      .execute();
    return true;
  });
}

/** Marks a liquidated vault repossessed; false when it is not (or no longer) claimable. */
export async function recordRepossession(
  db: Kysely<Database>,
  vaultId: string,
  claimedBy: string,
  claimTxid: string,
  now = Math.floor(Date.now() / 1000),
): Promise<boolean> {
  return db.transaction().execute(async (trx) => {
    const result = await trx
      .updateTable('liquidations')
      .set({ status: 'repossessed', claimed_by: claimedBy, claim_txid: claimTxid })
      .where('vault_id', '=', vaultId)
      .where('status', '=', 'liquidated')
      .executeTakeFirst();
    if (Number(result.numUpdatedRows) !== 1) return false;
    await trx
      .updateTable('vaults')
      .set({ status: 'repossessed', updated_at: now })
      .where('vault_id', '=', vaultId)
      .execute();
    return true;
  });
}

export async function getLiquidation(
  db: Kysely<Database>,
  vaultId: string,
): Promise<LiquidationRow | null> {
  return rowWhere(db, 'liquidations', 'vault_id', vaultId);
}

/**
 * Newest first, joined with the vault's name, and each vault's oracle count (its liquidation leaves:
 * the hashes its (threshold, stamp) settings row holds; 1 without one, off mode) for the repossess
 * fee. The route adds each vault's guardian key.
 */
export async function listLiquidations(
  db: Kysely<Database>,
): Promise<Omit<LiquidatedVaultDto, 'guard_pubkey'>[]> {
  const rows = await db
    .selectFrom('liquidations')
    .innerJoin('vaults', 'vaults.vault_id', 'liquidations.vault_id')
    .select([
      'liquidations.vault_id',
      'vaults.name',
      'vaults.vault_pubkey',
      'vaults.vault_txid',
      'vaults.vault_vout',
      'vaults.stamp',
      'vaults.settle_height',
      'vaults.exit_height',
      'liquidations.btc_locked',
      'liquidations.unit_borrowed',
      'liquidations.threshold_cents',
      'liquidations.liquidated_at',
      'liquidations.liquidation_hash',
      'liquidations.status',
    ])
    .orderBy('liquidations.liquidated_at', 'desc')
    .orderBy('liquidations.vault_id', 'asc')
    .execute();
  const keys = rows.map((r) => oracleHashesKey(r.threshold_cents, r.stamp));
  const stored = keys.length
    ? await db.selectFrom('settings').select(['key', 'value']).where('key', 'in', keys).execute()
    : [];
  const hashes = new Map(stored.map((s) => [s.key, hashesOf(s.value)]));
  return rows.map((r, i) => ({ ...r, oracles: oracleCount(hashes.get(keys[i]!)) }));
}

/** The hashes of a stored oracle commitment ({ hashes: [...] }); null when unreadable. */
function hashesOf(value: string): readonly unknown[] | null {
  try {
    const parsed = JSON.parse(value) as { hashes?: unknown };
    return Array.isArray(parsed.hashes) ? parsed.hashes : null;
  } catch {
    return null;
  }
}

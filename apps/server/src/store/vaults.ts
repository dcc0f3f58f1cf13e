// Vaults, their history records (SPEC §3) and chart points. The guardian writes them; the API
// reads them.
import { sql, type Insertable, type Kysely, type Selectable } from 'kysely';
import type { HistoryPointDto, VaultDto, VaultHistoryRecordDto } from '@unit/protocol';
import type { Database, VaultHistoryTable, VaultStatus, VaultsTable } from './schema';

export type VaultRow = Selectable<VaultsTable>;
export type NewVault = Omit<Insertable<VaultsTable>, 'updated_at'>;
export type VaultHistoryRow = Selectable<VaultHistoryTable>;
export type NewVaultHistory = Omit<Insertable<VaultHistoryTable>, 'id'>;

export interface VaultState {
  btc_locked: number | bigint;
  unit_borrowed: number | bigint;
  vault_txid: string;
  vault_vout: number;
  threshold_cents: number | bigint;
  stamp: number | bigint;
}

export async function insertVault(db: Kysely<Database>, vault: NewVault): Promise<void> {
  await db
    .insertInto('vaults')
    .values({ ...vault, updated_at: vault.created_at })
    .execute();
}

export async function getVault(db: Kysely<Database>, vaultId: string): Promise<VaultRow | null> {
  const row = await db
    .selectFrom('vaults')
    .selectAll()
    .where('vault_id', '=', vaultId)
    .executeTakeFirst();
  return row ?? null;
}

/**
 * The key's current vault: its live one (at most one, migrations.ts 0500), else the newest of its
 * closed ones. Older vaults of the key stay reachable by id (their history and outcome).
 */
export async function getVaultByPubkey(
  db: Kysely<Database>,
  vaultPubkey: string,
): Promise<VaultRow | null> {
  const row = await db
    .selectFrom('vaults')
    .selectAll()
    .where('vault_pubkey', '=', vaultPubkey.toLowerCase())
    .orderBy(sql`case when status = 'repossessed' then 1 else 0 end`)
    .orderBy('created_at', 'desc')
    .limit(1)
    .executeTakeFirst();
  return row ?? null;
}

export async function listVaultsByAccount(
  db: Kysely<Database>,
  account: string,
): Promise<VaultRow[]> {
  return db
    .selectFrom('vaults')
    .selectAll()
    .where('creation_account', '=', account)
    .orderBy('created_at', 'asc')
    .execute();
}

/** Records the vault's state after a transaction. */
export async function updateVaultState(
  db: Kysely<Database>,
  vaultId: string,
  state: VaultState,
  now = Math.floor(Date.now() / 1000),
): Promise<void> {
  await db
    .updateTable('vaults')
    .set({ ...state, updated_at: now })
    .where('vault_id', '=', vaultId)
    .execute();
}

export async function setVaultStatus(
  db: Kysely<Database>,
  vaultId: string,
  status: VaultStatus,
  now = Math.floor(Date.now() / 1000),
): Promise<void> {
  await db
    .updateTable('vaults')
    .set({ status, updated_at: now })
    .where('vault_id', '=', vaultId)
    .execute();
}

/**
 * Active vaults whose threshold price is at or above the price: the oracle would reveal their
 * threshold secret, so they are liquidatable (docs/protocol.md). Debt-free vaults have threshold 0.
 */
export async function liquidatableVaults(
  db: Kysely<Database>,
  priceCents: number,
): Promise<VaultRow[]> {
  return db
    .selectFrom('vaults')
    .selectAll()
    .where('status', '=', 'active')
    .where('threshold_cents', '>=', priceCents)
    .where('threshold_cents', '>', 0)
    .execute();
}

export async function countVaults(db: Kysely<Database>): Promise<number> {
  const row = await db
    .selectFrom('vaults')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function appendVaultHistory(
  db: Kysely<Database>,
  record: NewVaultHistory,
): Promise<void> {
  await db.insertInto('vault_history').values(record).execute();
}

/** Newest first, as the transactions table lists them. */
export async function vaultHistory(
  db: Kysely<Database>,
  vaultId: string,
): Promise<VaultHistoryRow[]> {
  return db
    .selectFrom('vault_history')
    .selectAll()
    .where('vault_id', '=', vaultId)
    .orderBy('timestamp', 'desc')
    .orderBy('id', 'desc')
    .execute();
}

export async function markHistoryConfirmed(db: Kysely<Database>, txid: string): Promise<number> {
  const result = await db
    .updateTable('vault_history')
    .set({ confirmed: 1 })
    .where('transaction_id', '=', txid)
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

export function toVaultDto(row: VaultRow, guardPubkey: string): VaultDto {
  return {
    vault_id: row.vault_id,
    vault_tag: row.vault_tag,
    name: row.name,
    unit_borrowed: row.unit_borrowed,
    btc_locked: row.btc_locked,
    creation_account: row.creation_account,
    guard_pubkey: guardPubkey,
    // One vault per key and no master vaults here: the vault is its own master.
    master_id: row.vault_id,
    vault_pubkey: row.vault_pubkey,
    vault_txid: row.vault_txid,
    vault_vout: row.vault_vout,
    threshold_cents: row.threshold_cents,
    stamp: row.stamp,
    status: row.status,
    created_at: row.created_at,
  };
}

export function toHistoryDto(row: VaultHistoryRow): VaultHistoryRecordDto {
  return {
    timestamp: row.timestamp,
    action: row.action,
    btc_amt: row.btc_amt,
    unit_amt: row.unit_amt,
    vault_amount: row.vault_amount,
    amount_borrowed: row.amount_borrowed,
    oracle_price: row.oracle_price,
    transaction_id: row.transaction_id,
    utxo: row.utxo,
    utxo_script: row.utxo_script,
    liquidation_hash: row.liquidation_hash,
    liquidation_threshold: row.liquidation_threshold,
    vault_id: row.vault_id,
    confirmed: Boolean(row.confirmed),
  };
}

/** SPEC §3 History point: the vault's state after each of its records, oldest first. */
export function historyPoints(rows: VaultHistoryRow[]): HistoryPointDto[] {
  return [...rows]
    .sort((a, b) => a.timestamp - b.timestamp || a.id - b.id)
    .map((r) => ({
      timestamp: r.timestamp,
      btc_locked: r.vault_amount,
      unit_borrowed: r.amount_borrowed,
      vaults: 1,
    }));
}

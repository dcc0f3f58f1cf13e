// Vaults, their history records (SPEC §3) and chart points. The guardian writes them; the API
// reads them.
import { sql, type Insertable, type Kysely, type Selectable } from 'kysely';
import type { HistoryPointDto, VaultDto, VaultHistoryRecordDto } from '@unit/protocol';
import { HISTORY_PAGE_MAX } from '@unit/protocol/wire';
import type { Database, VaultHistoryTable, VaultStatus, VaultsTable } from './schema';
import { rowWhere } from './rows';

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
  /** The term of the output (layout 2); null: layout 1. Absent: unchanged. */
  settle_height?: number | null;
  exit_height?: number | null;
}

/** `vaultOutput`'s term of a row: `{ term }` for a layout 2 output, `{}` for layout 1. */
export function termOf(row: Parameters<typeof rowTerm>[0]) {
  const term = rowTerm(row);
  return term ? { term } : {};
}

/** The term a vault row's output commits to (layout 2), or undefined for layout 1. */
export function rowTerm(row: {
  settle_height?: number | null;
  exit_height?: number | null;
}): { settleHeight: number; exitHeight: number } | undefined {
  return row.settle_height != null && row.exit_height != null
    ? { settleHeight: Number(row.settle_height), exitHeight: Number(row.exit_height) }
    : undefined;
}

export async function insertVault(db: Kysely<Database>, vault: NewVault): Promise<void> {
  await db
    .insertInto('vaults')
    .values({ ...vault, updated_at: vault.created_at })
    .execute();
}

export async function getVault(db: Kysely<Database>, vaultId: string): Promise<VaultRow | null> {
  return rowWhere(db, 'vaults', 'vault_id', vaultId);
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
    // Closed: repossessed, settled at its term, or left by its owner's exit.
    .orderBy(sql`case when status in ('repossessed', 'settled', 'exited') then 1 else 0 end`)
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

/** Where a history page ends: the (timestamp, id) of its oldest record. */
export interface HistoryCursor {
  timestamp: number;
  id: number;
}

/** Most records one history page may hold (the API refuses more): the route table's bound. */
export { HISTORY_PAGE_MAX };

/**
 * Newest first, as the transactions table lists them: at most `limit` records strictly older than
 * `before`, by keyset on the (vault_id, timestamp, id) index, so a page costs the same at any depth.
 */
export async function vaultHistory(
  db: Kysely<Database>,
  vaultId: string,
  page: { limit?: number; before?: HistoryCursor | null } = {},
): Promise<VaultHistoryRow[]> {
  const limit = Math.min(Math.max(1, page.limit ?? HISTORY_PAGE_MAX), HISTORY_PAGE_MAX + 1);
  let query = db
    .selectFrom('vault_history')
    .selectAll()
    .where('vault_id', '=', vaultId)
    .orderBy('timestamp', 'desc')
    .orderBy('id', 'desc')
    .limit(limit);
  const before = page.before;
  if (before) {
    query = query.where((eb) =>
      eb(eb.refTuple('timestamp', 'id'), '<', eb.tuple(before.timestamp, before.id)),
    );
  }
  return query.execute();
}

/**
 * One history page: `limit` records newest first, the cursor of the next older page (null at the
 * vault's first record), and the vault's state before the page's oldest record (the next older
 * record's state after), which that record's health-before column needs (SPEC §3 Derived history
 * row). One read of limit + 1 rows.
 */
export async function vaultHistoryPage(
  db: Kysely<Database>,
  vaultId: string,
  limit: number,
  before: HistoryCursor | null,
): Promise<{
  records: VaultHistoryRow[];
  next: HistoryCursor | null;
  stateBefore: { vault_amount: number; amount_borrowed: number } | null;
}> {
  const rows = await vaultHistory(db, vaultId, { limit: limit + 1, before });
  const records = rows.slice(0, limit);
  const older = rows[limit];
  const last = records[records.length - 1];
  return {
    records,
    next: older && last ? { timestamp: last.timestamp, id: last.id } : null,
    stateBefore: older
      ? { vault_amount: older.vault_amount, amount_borrowed: older.amount_borrowed }
      : null,
  };
}

/**
 * SPEC §3 History points for a chart period (SPEC §9 buckets): the vault's state at the start of
 * the period and at the end of each bucket, as the records that set them, oldest first and each
 * once. One index seek per bucket edge (at most 366), never a read of the vault's whole life.
 */
export async function vaultPointsBetween(
  db: Kysely<Database>,
  vaultId: string,
  from: number,
  bucketSeconds: number,
  buckets: number,
): Promise<HistoryPointDto[]> {
  const to = from + bucketSeconds * buckets;
  // Bucket edges from..to by a recursive CTE (both databases have them); for each, the id of the
  // last record before it, found by the (vault_id, timestamp, id) index.
  const result = await sql<{
    timestamp: number;
    vault_amount: number;
    amount_borrowed: number;
  }>`
    with recursive edges(edge) as (
      select cast(${from} as bigint)
      union all
      select edge + ${bucketSeconds} from edges where edge < ${to}
    ),
    last_ids as (
      select distinct (
        select h.id from vault_history h
        where h.vault_id = ${vaultId} and h.timestamp < edges.edge
        order by h.timestamp desc, h.id desc
        limit 1
      ) as id
      from edges
    )
    select r.timestamp, r.vault_amount, r.amount_borrowed
    from vault_history r join last_ids on r.id = last_ids.id
    order by r.timestamp asc, r.id asc
  `.execute(db);
  return result.rows.map((r) => ({
    timestamp: Number(r.timestamp),
    btc_locked: Number(r.vault_amount),
    unit_borrowed: Number(r.amount_borrowed),
    vaults: 1,
  }));
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
    // Layout 2: the term the output commits to, so a client rebuilds it.
    settle_height: row.settle_height ?? null,
    exit_height: row.exit_height ?? null,
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

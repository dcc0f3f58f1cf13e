// GET /api/ledger/:height: the app's own view of every vault after block `height`, with the digest
// open validators print (docs/protocol.md, "The ledger digest"), computed by the same pure function
// (@unit/bitcoin ledgerDigest). The app's view is its database: each vault's history rows (the
// state after each of its transactions), placed at the height the chain confirmed them. A row the
// database holds differently from the chain's record makes the digests disagree, and the entries
// name the vault.
import type { FastifyInstance } from 'fastify';
import type { Kysely } from 'kysely';
import { ledgerJson, type LedgerJson, type LedgerVault } from '@unit/bitcoin';
import type { Chain } from '../chain/port';
import type { Database } from '../store/schema';
import { notFound } from './errors';
import { tableRoute } from './table-route';

/** Lookups per client address per minute: a validator comparing the blocks where vaults moved. */
export const LEDGER_READS_PER_MINUTE = 120;
/** The history rows one answer folds; more is a ledger this route does not serve. */
const MAX_ROWS = 2_000_000;
/** Confirmed heights kept in memory (a confirmed transaction's height changes only in a reorg). */
const MAX_CACHED_HEIGHTS = 1_000_000;
const PARALLEL_STATUS_READS = 16;

/** Each txid's confirmed height, read from the chain once and kept. */
export class ConfirmedHeights {
  private readonly heights = new Map<string, number>();

  constructor(private readonly chain: Pick<Chain, 'txStatus'>) {}

  async of(txids: readonly string[]): Promise<Map<string, number | null>> {
    const out = new Map<string, number | null>();
    const missing = [...new Set(txids)].filter((id) => {
      const known = this.heights.get(id);
      if (known !== undefined) out.set(id, known);
      return known === undefined;
    });
    for (let start = 0; start < missing.length; start += PARALLEL_STATUS_READS) {
      const batch = missing.slice(start, start + PARALLEL_STATUS_READS);
      const statuses = await Promise.all(batch.map((id) => this.chain.txStatus(id)));
      batch.forEach((id, i) => {
        const status = statuses[i];
        const height = status?.confirmed ? (status.block_height ?? null) : null;
        out.set(id, height);
        if (height !== null && this.heights.size < MAX_CACHED_HEIGHTS) this.heights.set(id, height);
      });
    }
    return out;
  }

  /** Forgets every height: after a reorganisation (the tip went back). */
  clear(): void {
    this.heights.clear();
  }
}

export interface AppLedgerRow {
  vault_id: string;
  action: string;
  vault_amount: number | bigint;
  amount_borrowed: number | bigint;
  transaction_id: string;
}

/**
 * The app's ledger after `height`: each vault's last on-chain history row confirmed at or below
 * it (`l`, the oracle's liquidation mark, is not on the chain). A vault the app marks repossessed
 * is `repossessed` from its `x` row on; one the guardians settled at its term `settled` from its
 * `s` row on (holding nothing); one its owner left by the exit `exited` from its `e` row on
 * (holding nothing); every other vault is `open`. A vault is named by its
 * opening as mined: a sped-up opening keeps the original's txid as the app's vault id, but the
 * chain holds only the replacement.
 */
export function foldAppLedger(
  rows: readonly AppLedgerRow[],
  repossessed: ReadonlySet<string>,
  heights: ReadonlyMap<string, number | null>,
  height: number,
): LedgerVault[] {
  const last = new Map<string, AppLedgerRow>();
  /** A sped-up opening keeps the original's txid as its vault id; the chain knows the replacement. */
  const openedBy = new Map<string, string>();
  for (const row of rows) {
    if (row.action === 'l') continue;
    if (row.action === 'o') openedBy.set(row.vault_id, row.transaction_id);
    const at = heights.get(row.transaction_id);
    if (at === null || at === undefined || at > height) continue;
    last.set(row.vault_id, row);
  }
  return [...last.values()].map((row) => ({
    vaultId: openedBy.get(row.vault_id) ?? row.vault_id,
    collateralSats: BigInt(row.vault_amount),
    debt: BigInt(row.amount_borrowed),
    status:
      row.action === 's'
        ? 'settled'
        : row.action === 'e'
          ? 'exited'
          : row.action === 'x' && repossessed.has(row.vault_id)
            ? 'repossessed'
            : 'open',
  }));
}

/** The app's ledger after `height` from its database and the chain's confirmations. */
export async function appLedgerAt(
  db: Kysely<Database>,
  heights: ConfirmedHeights,
  height: number,
): Promise<LedgerJson> {
  const rows = await db
    .selectFrom('vault_history')
    .select(['vault_id', 'action', 'vault_amount', 'amount_borrowed', 'transaction_id'])
    .where('action', '!=', 'l')
    .orderBy('id')
    .limit(MAX_ROWS + 1)
    .execute();
  if (rows.length > MAX_ROWS) throw new Error('the ledger has more history than this route folds');
  const closed = await db
    .selectFrom('vaults')
    .select('vault_id')
    .where('status', '=', 'repossessed')
    .execute();
  const confirmed = await heights.of(rows.map((r) => r.transaction_id));
  const repossessed = new Set(closed.map((r) => r.vault_id));
  return ledgerJson(height, foldAppLedger(rows, repossessed, confirmed, height));
}

/**
 * Serves GET /api/ledger/:height; answers the same read for the server's own use (the validators'
 * agreement on /network), sharing its confirmed heights.
 */
export function registerLedgerRoute(
  app: FastifyInstance,
  deps: { db: Kysely<Database>; chain: Pick<Chain, 'tip' | 'txStatus'> },
): (height: number) => Promise<LedgerJson> {
  const heights = new ConfirmedHeights(deps.chain);
  let lastTip = 0;
  const ledgerAt = async (height: number) => {
    const tip = (await deps.chain.tip()).height;
    if (tip < lastTip) heights.clear();
    lastTip = tip;
    if (height > tip)
      throw notFound(`Block ${height} is not mined yet; the chain's tip is at ${tip}`);
    return appLedgerAt(deps.db, heights, height);
  };
  const limit = { rateLimit: { max: LEDGER_READS_PER_MINUTE, timeWindow: '1 minute' } };
  tableRoute(app, 'ledger', ({ params: { height } }) => ledgerAt(height), { config: limit });
  return ledgerAt;
}

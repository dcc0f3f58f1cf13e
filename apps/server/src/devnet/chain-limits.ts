// The mempool's package limits, Bitcoin Core's defaults (doc/policy/mempool-limits.md): a
// transaction may have at most 25 unconfirmed ancestors counting itself, weighing 101 kvB together,
// and no unconfirmed ancestor of it may reach more than 25 descendants or 101 kvB with it
// (-limitancestorcount, -limitancestorsize, -limitdescendantcount, -limitdescendantsize). Refusals
// carry Core's reason `too-long-mempool-chain` and its detail, as CalculateMemPoolAncestors words it.
import type { Kysely } from 'kysely';
import { REJECT, refuse } from './policy';
import type { DevnetDatabase } from './tables';

export const ANCESTOR_LIMIT = 25;
export const DESCENDANT_LIMIT = 25;
/** 101 kvB, in virtual bytes. */
export const ANCESTOR_SIZE_LIMIT_VB = 101_000;
export const DESCENDANT_SIZE_LIMIT_VB = 101_000;

type Db = Kysely<DevnetDatabase>;

const tooLong = (detail: string): never => refuse(`${REJECT.tooLongMempoolChain}, ${detail}`);

/** Mempool transactions among `txids`, with their vsize. */
async function unconfirmed(db: Db, txids: readonly string[]): Promise<Map<string, number>> {
  if (txids.length === 0) return new Map();
  const rows = await db
    .selectFrom('devnet_txs')
    .select(['txid', 'vsize'])
    .where('txid', 'in', [...txids])
    .where('block_height', 'is', null)
    .execute();
  return new Map(rows.map((r) => [r.txid, Number(r.vsize)]));
}

/** The mempool parents of a mempool transaction: whose outputs it spends. */
async function parentsOf(db: Db, txid: string): Promise<Map<string, number>> {
  const rows = await db
    .selectFrom('devnet_outputs')
    .select('txid')
    .distinct()
    .where('spent_txid', '=', txid)
    .execute();
  return unconfirmed(
    db,
    rows.map((r) => r.txid),
  );
}

/** Count and vsize of a mempool transaction with all its descendants, `excluded` left out. */
async function withDescendants(
  db: Db,
  txid: string,
  vsize: number,
  excluded: ReadonlySet<string>,
): Promise<{ count: number; vsize: number }> {
  const seen = new Set([txid]);
  let total = vsize;
  let frontier = [txid];
  while (frontier.length > 0) {
    const children = await db
      .selectFrom('devnet_outputs')
      .select('spent_txid')
      .distinct()
      .where('txid', 'in', frontier)
      .where('spent_txid', 'is not', null)
      .execute();
    const fresh = children
      .map((c) => c.spent_txid!)
      .filter((child) => !seen.has(child) && !excluded.has(child));
    const sizes = await unconfirmed(db, fresh);
    frontier = [];
    for (const [child, size] of sizes) {
      seen.add(child);
      total += size;
      frontier.push(child);
    }
    // Past the limit the exact count no longer matters: stop walking.
    if (seen.size > DESCENDANT_LIMIT) break;
  }
  return { count: seen.size, vsize: total };
}

/**
 * Refuses a transaction of `vsize` spending outputs of `inputTxids` when it would break the
 * ancestor or descendant limits. `excluded`: mempool transactions it replaces, which leave with it.
 */
export async function checkMempoolChain(
  db: Db,
  inputTxids: readonly string[],
  vsize: number,
  excluded: ReadonlySet<string> = new Set(),
): Promise<void> {
  const parents = await unconfirmed(
    db,
    [...new Set(inputTxids)].filter((t) => !excluded.has(t)),
  );
  if (parents.size + 1 > ANCESTOR_LIMIT)
    tooLong(`too many unconfirmed parents [limit: ${ANCESTOR_LIMIT}]`);
  const ancestors = new Set<string>();
  const staged = new Map(parents);
  let totalSize = vsize;
  while (staged.size > 0) {
    const [txid, size] = staged.entries().next().value!;
    staged.delete(txid);
    ancestors.add(txid);
    totalSize += size;
    const descendants = await withDescendants(db, txid, size, excluded);
    if (descendants.vsize + vsize > DESCENDANT_SIZE_LIMIT_VB)
      tooLong(`exceeds descendant size limit for tx ${txid} [limit: ${DESCENDANT_SIZE_LIMIT_VB}]`);
    if (descendants.count + 1 > DESCENDANT_LIMIT)
      tooLong(`too many descendants for tx ${txid} [limit: ${DESCENDANT_LIMIT}]`);
    if (totalSize > ANCESTOR_SIZE_LIMIT_VB)
      tooLong(`exceeds ancestor size limit [limit: ${ANCESTOR_SIZE_LIMIT_VB}]`);
    for (const [parent, parentSize] of await parentsOf(db, txid)) {
      if (!ancestors.has(parent)) staged.set(parent, parentSize);
      if (staged.size + ancestors.size + 1 > ANCESTOR_LIMIT)
        tooLong(`too many unconfirmed ancestors [limit: ${ANCESTOR_LIMIT}]`);
    }
  }
}

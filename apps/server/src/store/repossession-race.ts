// A repossession and its liquidated vault's owner's exit race for the same output once the chain
// passed the vault's exit height (docs/protocol.md, "Leaving without the guardians"). A repossession
// is recorded when it is sent; the chain says which of the two was mined. These are the rows the
// block watcher follows (repossessions whose record is not confirmed yet) and the one database
// transaction that settles a race the exit won: the liquidated vault `exited` (history `e`, its
// liquidation ended `exited`), and the claimant's vault back on the output it still has.
import { sql, type Kysely, type Transaction } from 'kysely';
import type { Database } from './schema';
import { exitHistory } from './exits';
import { appendVaultHistory } from './vaults';

/** Repossessions looked at per block: a chain read or two each, as the exit pass. */
export const REPOSSESSION_CHECK_BATCH = 50;

/** A repossession not yet mined, with the liquidated output it spends and the claimant's key. */
export interface PendingRepossession {
  /** The liquidated vault. */
  vault_id: string;
  vault_txid: string;
  vault_vout: number;
  exit_height: number | null;
  vault_pubkey: string;
  /** What the liquidated vault held (the liquidation's record of it). */
  btc_locked: number | bigint;
  unit_borrowed: number | bigint;
  /** The repossession's transaction (a speed-up's, once it replaced the original). */
  claim_txid: string;
  /** The claimant's vault and key. */
  claimed_by: string;
  claimant_pubkey: string;
}

/**
 * Repossessions whose claim record (`x`, on the liquidated vault) is not confirmed, after the
 * liquidated vault id `after` in id order, at most `limit`: read from the unconfirmed records (their
 * partial index), so a page costs what is pending, not every past repossession.
 */
export function unconfirmedRepossessions(
  db: Kysely<Database>,
  after = '',
  limit = REPOSSESSION_CHECK_BATCH,
): Promise<PendingRepossession[]> {
  return (
    db
      .selectFrom('vault_history as h')
      .innerJoin('liquidations as l', (join) =>
        join.onRef('l.vault_id', '=', 'h.vault_id').onRef('l.claim_txid', '=', 'h.transaction_id'),
      )
      .innerJoin('vaults as v', 'v.vault_id', 'l.vault_id')
      .innerJoin('vaults as c', 'c.vault_id', 'l.claimed_by')
      .select(['v.vault_id', 'v.vault_txid', 'v.vault_vout', 'v.exit_height', 'v.vault_pubkey'])
      .select(['l.btc_locked', 'l.unit_borrowed', 'c.vault_pubkey as claimant_pubkey'])
      .select((eb) => [
        eb.fn.coalesce('l.claim_txid', sql.lit('')).as('claim_txid'),
        eb.fn.coalesce('l.claimed_by', sql.lit('')).as('claimed_by'),
      ])
      // A literal: SQLite reads the partial index of unconfirmed records only for a named value.
      .where('h.confirmed', '=', sql.lit(0))
      .where('h.action', '=', 'x')
      .where('l.status', '=', 'repossessed')
      .where('h.vault_id', '>', after)
      .orderBy('h.vault_id')
      .limit(Math.max(1, Math.min(limit, REPOSSESSION_CHECK_BATCH)))
      .execute()
  );
}

/** The claimant's vault as it was before the repossession (the request's effects keep it). */
export interface ClaimantState {
  vault_txid: string;
  vault_vout: number;
  btc_locked: number;
  unit_borrowed: number;
  threshold_cents: number;
  stamp: number;
  settle_height: number | null;
  exit_height: number | null;
}

/**
 * The owner's exit won the race: in one database transaction the liquidated vault is `exited`
 * (nothing left in it, history `e` instead of the claim's `x`), its liquidation ends `exited` with
 * the exit as its transaction and no claimant, the claimant's records of the repossession (and of
 * anything built on it, which cannot be mined either) go, its vault returns to `before` (the output
 * it still has; left as it is when unknown), and the guardian's request is failed with the reason.
 * False when the row moved on (another pass settled it, or the claim changed).
 */
export function closeRepossessionByExit(
  db: Kysely<Database>,
  race: PendingRepossession,
  exit: { txid: string; payoutScript: string; timestamp: number },
  before: ClaimantState | null,
): Promise<boolean> {
  return db.transaction().execute(async (trx) => {
    const ended = await trx
      .updateTable('liquidations')
      .set({ status: 'exited', claim_txid: exit.txid, claimed_by: null })
      .where('vault_id', '=', race.vault_id)
      .where('status', '=', 'repossessed')
      .where('claim_txid', '=', race.claim_txid)
      .executeTakeFirst();
    if (Number(ended.numUpdatedRows) !== 1) return false;
    await trx
      .updateTable('vaults')
      .set({ status: 'exited', btc_locked: 0, unit_borrowed: 0, updated_at: exit.timestamp })
      .where('vault_id', '=', race.vault_id)
      .execute();
    await dropClaimRecords(trx, race);
    await appendVaultHistory(
      trx,
      exitHistory(race.vault_id, race, exit.txid, exit.payoutScript, exit.timestamp),
    );
    await undoClaimant(trx, race, before, exit.timestamp, EXIT_WON_REASON);
    return true;
  });
}

/** The liquidated vault's unconfirmed records of the claim that lost. */
function dropClaimRecords(trx: Transaction<Database>, race: PendingRepossession) {
  return trx
    .deleteFrom('vault_history')
    .where('vault_id', '=', race.vault_id)
    .where('transaction_id', '=', race.claim_txid)
    .where('confirmed', '=', 0)
    .execute();
}

/** A repossession a block showed can never be mined: the claimant's vault, the claim and why. */
export interface FailedClaim {
  claimant: string;
  txid: string;
  cause: 'exit' | 'input_spent';
}

/** Why a repossession's request failed when the owner's exit was mined instead. */
export const EXIT_WON_REASON =
  "the liquidated vault's owner left by the exit leaf: the repossession was never mined";

/** Why a repossession's request failed when another mined transaction spent one of its inputs. */
export const INPUT_SPENT_REASON =
  'another mined transaction spent one of its inputs: the repossession can never be mined';

/**
 * The repossession can never be mined (another mined transaction spent one of its inputs) and the
 * liquidated output is still unspent: in one database transaction the vault and its liquidation are
 * `liquidated` again (offered to claimants, its exit leaf open to its owner), the claim's records
 * go, and the claimant's vault returns to `before`. False when the row moved on.
 */
export function reopenLiquidation(
  db: Kysely<Database>,
  race: PendingRepossession,
  before: ClaimantState | null,
  now: number,
): Promise<boolean> {
  return db.transaction().execute(async (trx) => {
    const reopened = await trx
      .updateTable('liquidations')
      .set({ status: 'liquidated', claim_txid: null, claimed_by: null })
      .where('vault_id', '=', race.vault_id)
      .where('status', '=', 'repossessed')
      .where('claim_txid', '=', race.claim_txid)
      .executeTakeFirst();
    if (Number(reopened.numUpdatedRows) !== 1) return false;
    await trx
      .updateTable('vaults')
      .set({
        ...{ status: 'liquidated', btc_locked: race.btc_locked },
        ...{ unit_borrowed: race.unit_borrowed, updated_at: now },
      })
      .where('vault_id', '=', race.vault_id)
      .execute();
    await dropClaimRecords(trx, race);
    await undoClaimant(trx, race, before, now, INPUT_SPENT_REASON);
    return true;
  });
}

/** The claimant's side of a repossession that will never be mined; inside the caller's transaction. */
async function undoClaimant(
  trx: Kysely<Database>,
  race: PendingRepossession,
  before: ClaimantState | null,
  now: number,
  reason: string,
): Promise<void> {
  const first = await trx
    .selectFrom('vault_history')
    .select((eb) => eb.fn.min('id').as('id'))
    .where('vault_id', '=', race.claimed_by)
    .where('transaction_id', '=', race.claim_txid)
    .executeTakeFirst();
  if (first?.id !== null && first?.id !== undefined)
    // The repossession's record and every later unconfirmed one: each spends the output it made.
    await trx
      .deleteFrom('vault_history')
      .where('vault_id', '=', race.claimed_by)
      .where('confirmed', '=', 0)
      .where('id', '>=', Number(first.id))
      .execute();
  if (before)
    await trx
      .updateTable('vaults')
      .set({ ...before, updated_at: now })
      .where('vault_id', '=', race.claimed_by)
      .where('status', '=', 'active')
      .execute();
  await trx
    .updateTable('guardian_requests')
    .set({ state: 'failed', error: reason, updated_at: now })
    .where('txid', '=', race.claim_txid)
    .execute();
  // A speed-up of the repossession waits on nothing any more.
  await trx.deleteFrom('guardian_replacements').where('txid', '=', race.claim_txid).execute();
  await trx
    .deleteFrom('guardian_unanswered_replacements')
    .where('original_txid', '=', race.claim_txid)
    .execute();
}

/**
 * What the repossession's request kept: the transaction as sent, and the claimant's state before
 * it (null from a request made before requests kept it).
 */
export async function repossessionRequest(
  db: Kysely<Database>,
  claimTxid: string,
): Promise<{ rawHex: string | null; before: ClaimantState | null }> {
  const row = await db
    .selectFrom('guardian_requests')
    .select(['effects', 'raw_hex'])
    .where('txid', '=', claimTxid)
    .executeTakeFirst();
  const effects = row?.effects
    ? (JSON.parse(row.effects) as { kind?: string; before?: ClaimantState })
    : null;
  const before = effects?.kind === 'repossess' && effects.before ? effects.before : null;
  return { rawHex: row?.raw_hex ?? null, before };
}

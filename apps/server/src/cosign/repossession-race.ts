// A repossession is recorded when it is sent, but the chain decides: once its liquidated vault is
// past its exit height, the owner's exit spends the same output and may be the one mined (sent
// first, or replacing the repossession in the mempool: both signal replaceability). On each block
// the repossessions whose record is not confirmed are looked at, a bounded page at a time, and the
// chain is asked who spent the liquidated output: the repossession (or nothing mined yet) leaves
// everything as it is, and the confirmation pass confirms it once mined; a mined exit settles the
// race the exit's way (store/repossession-race.ts), as a reindex from the chain would. One that
// left the mempool with its inputs free is sent again; one whose other input a mined transaction
// spent can never be mined, and its liquidation is offered again.
import { hex } from '@scure/base';
import { parseTransaction } from '@unit/bitcoin';
import { ChainUnavailableError, type ChainSpender } from '../chain/port';
import {
  closeRepossessionByExit,
  reopenLiquidation,
  repossessionRequest,
  REPOSSESSION_CHECK_BATCH,
  unconfirmedRepossessions,
  type FailedClaim,
  type PendingRepossession,
} from '../store';
import type { GuardianContext } from './context';
import { findOrSend } from './broadcast';
import { exitBy } from './exits';
import { acquireLocks, claimLock, lockOwner, releaseLocks, vaultLock } from './locks';

type Outcome = 'exited' | 'reopened' | 'waiting' | 'unknown';

/** What the chain says of a pending repossession's liquidated output and inputs. */
type Read =
  | { kind: 'waiting' }
  | { kind: 'exit'; exit: { spender: ChainSpender; script: string } }
  /** Mined, neither the repossession nor an exit (a speed-up's original, or no rule of ours). */
  | { kind: 'other'; spender: string }
  /** The output is unspent, and a mined transaction spent another of the repossession's inputs. */
  | { kind: 'input-spent'; spender: string };

/**
 * What the chain says of one pending repossession: 'exited' once the owner's mined exit settled
 * it, 'reopened' once it can never be mined and the liquidation is offered again, 'waiting' while
 * the repossession (or nothing mined) holds the output or the vaults are busy, 'unknown' when the
 * chain did not answer.
 */
async function followOne(g: GuardianContext, race: PendingRepossession): Promise<Outcome> {
  let read: Read;
  try {
    read = await readRace(g, race);
  } catch (error) {
    if (!(error instanceof ChainUnavailableError)) throw error;
    g.log.warn(
      { vault: race.vault_id, claim: race.claim_txid, reason: error.message },
      "a repossession's liquidated output: the chain did not answer, asked again next block",
    );
    return 'unknown';
  }
  if (read.kind === 'waiting') return 'waiting';
  if (read.kind === 'other') {
    // The replacements pass points the store back at a speed-up's original; anything else stays
    // for the operator, named here.
    g.log.warn(
      { vault: race.vault_id, claim: race.claim_txid, spender: read.spender },
      "a repossession's liquidated output was spent by another transaction",
    );
    return 'waiting';
  }
  return settleRace(g, race, read);
}

/** The chain's reads for one race; throws ChainUnavailableError when a read got no answer. */
async function readRace(g: GuardianContext, race: PendingRepossession): Promise<Read> {
  const spender = await g.chain.spender(race.vault_txid, race.vault_vout);
  if (spender) {
    if (spender.txid === race.claim_txid || !spender.status.confirmed) return { kind: 'waiting' };
    const exit = await exitBy(g.chain, race, spender);
    return exit ? { kind: 'exit', exit } : { kind: 'other', spender: spender.txid };
  }
  // Unspent: the repossession is neither mined nor waiting, unless the index lags behind.
  if (await g.chain.txStatus(race.claim_txid)) return { kind: 'waiting' };
  const { rawHex } = await repossessionRequest(g.db, race.claim_txid);
  if (!rawHex) return { kind: 'waiting' };
  const tx = parseTransaction(rawHex);
  for (let i = 0; i < tx.inputsLength; i++) {
    const input = tx.getInput(i);
    const other = await g.chain.spender(hex.encode(input.txid!), input.index!);
    if (other && other.txid !== race.claim_txid && other.status.confirmed)
      return { kind: 'input-spent', spender: other.txid };
  }
  // No input taken by a mined transaction: the claimant signed it to be sent, so it is sent once
  // more (refused while a conflicting spend waits in the mempool; the outcome is logged).
  const sent = await findOrSend(g.chain, race.claim_txid, rawHex);
  g.log.warn(
    { vault: race.vault_id, claim: race.claim_txid, outcome: sent.outcome },
    'a repossession gone from the mempool, none of its inputs spent in a block: sent again',
  );
  return { kind: 'waiting' };
}

/** Under both vaults' locks: the race settled the chain's way, in one database transaction. */
async function settleRace(
  g: GuardianContext,
  race: PendingRepossession,
  read: Extract<Read, { kind: 'exit' | 'input-spent' }>,
): Promise<Outcome> {
  const holder = { owner: lockOwner('repossession-race'), instanceId: g.instance.id };
  const locks = [vaultLock(race.claimant_pubkey), claimLock(race.vault_id)];
  // A request spending the claimant's vault right now: the next block settles it.
  if (!(await acquireLocks(g.db, locks, holder, g.now()))) return 'waiting';
  try {
    const { before } = await repossessionRequest(g.db, race.claim_txid);
    const claimant = before
      ? "the claimant's vault is back on its output"
      : "the claimant's vault predates the state its request keeps: reindex it";
    const facts = { vault: race.vault_id, claim: race.claim_txid, claimant: race.claimed_by };
    if (read.kind === 'input-spent') {
      if (!(await reopenLiquidation(g.db, race, before, g.now()))) return 'waiting';
      g.log.warn(
        { ...facts, spender: read.spender },
        `a repossession can never be mined: the vault is liquidated again; ${claimant}`,
      );
      return 'reopened';
    }
    const { txid, status } = read.exit.spender;
    const exit = { txid, payoutScript: read.exit.script, timestamp: status.block_time ?? g.now() };
    if (!(await closeRepossessionByExit(g.db, race, exit, before))) return 'waiting';
    g.log.warn(
      { ...facts, exit: txid },
      `the owner's exit was mined instead of the repossession: the vault exited; ${claimant}`,
    );
    return 'exited';
  } finally {
    await releaseLocks(g.db, holder.owner);
  }
}

/**
 * Each block: the repossessions not yet mined, from the liquidated vault id `after` on, at most
 * `limit`; answers the liquidated vaults their owner's exit closed, those offered again (their
 * repossession can never be mined), the claimants' vaults that changed with them, each claim that
 * failed and why (its claimant is told), and where the next pass goes on ('' from the start).
 */
export async function followRepossessions(
  g: GuardianContext,
  after = '',
  limit = REPOSSESSION_CHECK_BATCH,
): Promise<{
  exited: string[];
  reopened: string[];
  claimants: string[];
  failed: FailedClaim[];
  next: string;
}> {
  const rows = await unconfirmedRepossessions(g.db, after, limit);
  const settled = { exited: [] as string[], reopened: [] as string[], claimants: [] as string[] };
  const failed: FailedClaim[] = [];
  for (const race of rows) {
    const outcome = await followOne(g, race);
    if (outcome !== 'exited' && outcome !== 'reopened') continue;
    settled[outcome].push(race.vault_id);
    settled.claimants.push(race.claimed_by);
    const cause = outcome === 'exited' ? 'exit' : 'input_spent';
    failed.push({ claimant: race.claimed_by, txid: race.claim_txid, cause });
    g.vaultChanged(race.vault_id);
    g.vaultChanged(race.claimed_by);
  }
  return { ...settled, failed, next: rows.length < limit ? '' : rows.at(-1)!.vault_id };
}

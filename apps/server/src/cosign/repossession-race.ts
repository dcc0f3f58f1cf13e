// A repossession is recorded when it is sent, but the chain decides: once its liquidated vault is
// past its exit height, the owner's exit spends the same output and may be the one mined (sent
// first, or replacing the repossession in the mempool: both signal replaceability). On each block
// the repossessions whose record is not confirmed are looked at, a bounded page at a time, and the
// chain is asked who spent the liquidated output: the repossession (or nothing mined yet) leaves
// everything as it is, and the confirmation pass confirms it once mined; a mined exit settles the
// race the exit's way (store/repossession-race.ts), as a reindex from the chain would.
import { ChainUnavailableError, type ChainSpender } from '../chain/port';
import {
  claimantBefore,
  closeRepossessionByExit,
  REPOSSESSION_CHECK_BATCH,
  unconfirmedRepossessions,
  type PendingRepossession,
} from '../store';
import type { GuardianContext } from './context';
import { exitBy } from './exits';
import { acquireLocks, claimLock, lockOwner, releaseLocks, vaultLock } from './locks';

type Outcome = 'exited' | 'waiting' | 'unknown';

/**
 * What the chain says of one pending repossession: 'exited' once the owner's mined exit settled
 * it, 'waiting' while the repossession (or nothing mined) holds the output or the vaults are busy,
 * 'unknown' when the chain did not answer.
 */
async function followOne(g: GuardianContext, race: PendingRepossession): Promise<Outcome> {
  let spender: ChainSpender | null;
  let exit: { spender: ChainSpender; script: string } | null = null;
  try {
    spender = await g.chain.spender(race.vault_txid, race.vault_vout);
    if (spender && spender.txid !== race.claim_txid && spender.status.confirmed)
      exit = await exitBy(g.chain, race, spender);
  } catch (error) {
    if (!(error instanceof ChainUnavailableError)) throw error;
    g.log.warn(
      { vault: race.vault_id, claim: race.claim_txid, reason: error.message },
      "a repossession's liquidated output: the chain did not answer, asked again next block",
    );
    return 'unknown';
  }
  if (!spender || spender.txid === race.claim_txid || !spender.status.confirmed) return 'waiting';
  if (!exit) {
    // Mined, and neither the repossession nor an exit: a speed-up's original, which the
    // replacements pass points the store back at, or a spend no rule of ours tells.
    g.log.warn(
      { vault: race.vault_id, claim: race.claim_txid, spender: spender.txid },
      "a repossession's liquidated output was spent by another transaction",
    );
    return 'waiting';
  }
  return settleByExit(g, race, exit);
}

/** Under both vaults' locks: the liquidated vault exited, the claimant's vault back as it was. */
async function settleByExit(
  g: GuardianContext,
  race: PendingRepossession,
  exit: { spender: ChainSpender; script: string },
): Promise<Outcome> {
  const holder = { owner: lockOwner('repossession-race'), instanceId: g.instance.id };
  const locks = [vaultLock(race.claimant_pubkey), claimLock(race.vault_id)];
  // A request spending the claimant's vault right now: the next block settles it.
  if (!(await acquireLocks(g.db, locks, holder, g.now()))) return 'waiting';
  try {
    const before = await claimantBefore(g.db, race.claim_txid);
    const { txid, status } = exit.spender;
    const closed = await closeRepossessionByExit(
      g.db,
      race,
      { txid, payoutScript: exit.script, timestamp: status.block_time ?? g.now() },
      before,
    );
    if (!closed) return 'waiting';
    g.log.warn(
      { vault: race.vault_id, exit: txid, claim: race.claim_txid, claimant: race.claimed_by },
      before
        ? "the owner's exit was mined instead of the repossession: the vault exited, the claimant's vault is back on its output"
        : "the owner's exit was mined instead of the repossession: the vault exited; the claimant's vault state predates this server's records, reindex it",
    );
    return 'exited';
  } finally {
    await releaseLocks(g.db, holder.owner);
  }
}

/**
 * Each block: the repossessions not yet mined, from the liquidated vault id `after` on, at most
 * `limit`; answers the liquidated vaults their owner's exit closed, the claimants' vaults that
 * changed with them, and where the next pass goes on ('' from the start).
 */
export async function followRepossessions(
  g: GuardianContext,
  after = '',
  limit = REPOSSESSION_CHECK_BATCH,
): Promise<{ exited: string[]; claimants: string[]; next: string }> {
  const rows = await unconfirmedRepossessions(g.db, after, limit);
  const exited: string[] = [];
  const claimants: string[] = [];
  for (const race of rows) {
    if ((await followOne(g, race)) !== 'exited') continue;
    exited.push(race.vault_id);
    claimants.push(race.claimed_by);
    g.vaultChanged(race.vault_id);
    g.vaultChanged(race.claimed_by);
  }
  return { exited, claimants, next: rows.length < limit ? '' : rows.at(-1)!.vault_id };
}

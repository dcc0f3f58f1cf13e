// Outcomes the network did not tell, settled from the chain. A broadcast whose answer was lost (the
// service accepted it and the answer never came, a time-out, a 502) says nothing of whether the
// transaction reached the network, so it is never taken for a refusal: the guardian asks the chain
// whether it holds the transaction and settles the request and its vault either way. Its effects
// are committed when the chain holds it; the request fails, and its locks are freed, when the
// network refused it (a conflicting spend among the reasons) or, past a bound, never answered.
// Until then the request is handed to recovery (recover.ts) with its locks, so nobody spends the
// vault meanwhile. A request failed that way whose transaction turns up later is committed by
// `catchUpVault`, so a vault never stays behind its output on the chain.
import { hex } from '@scure/base';
import { Transaction } from '@scure/btc-signer';
import type { Kysely } from 'kysely';
import { getVault, type Database, type VaultRow } from '../store';
import { applyEffects, changedVaultIds, effectsVaultId, type Effects } from './effects';
import type { GuardianContext } from './context';
import { acquireLocks, lockOwner, releaseLocks, vaultLock } from './locks';
import { settleVaultReplacement } from './speedup-settle';
import { chainHolds } from './broadcast';

export { chainHolds, findOrSend, sendOrFind, type Sent } from './broadcast';

/**
 * The instance a request belongs to once its broadcast went unanswered: no process runs under it,
 * so every recovery round (recover.ts) takes it up until the chain settles it.
 */
export const HANDED_OFF = 'unanswered-broadcast';

/**
 * How long after its expiry a request whose broadcast the network never answered stays handed
 * off, its vault locked: past it the request fails and its vault is free (a transaction that turns
 * up later is still committed: catchUpVault, settleLate).
 */
export const UNANSWERED_BOUND_SECONDS = 120;

/**
 * Hands a co-signed request whose broadcast went unanswered to recovery, with its locks: false
 * when it is no longer this instance's (another took it over meanwhile).
 */
export async function handOff(
  db: Kysely<Database>,
  request: { nonce: string; expires_at: number },
  instanceId: string,
  owner: string,
  reason: string,
  now: number,
): Promise<boolean> {
  const { nonce } = request;
  return db.transaction().execute(async (trx) => {
    const moved = await trx
      .updateTable('guardian_requests')
      .set({ instance_id: HANDED_OFF, error: reason, updated_at: now })
      .where('nonce', '=', nonce.toLowerCase())
      .where('instance_id', '=', instanceId)
      .where('state', '=', 'cosigned')
      .executeTakeFirst();
    if (Number(moved.numUpdatedRows) !== 1) return false;
    // Renamed so the request's own release (pipeline.ts) leaves them; recovery frees them by the
    // nonce once the chain has settled the request (locks.ts releaseRequestLocks).
    await trx
      .updateTable('guardian_locks')
      .set({
        owner: `${nonce.toLowerCase()}:${HANDED_OFF}`,
        instance_id: HANDED_OFF,
        // Held until recovery settles the request, at the latest until the bound.
        expires_at: request.expires_at + UNANSWERED_BOUND_SECONDS,
      })
      .where('owner', '=', owner)
      .execute();
    return true;
  });
}

/** Whether the raw transaction spends the outpoint. */
function spends(rawHex: string, txid: string, vout: number): boolean {
  try {
    const tx = Transaction.fromRaw(hex.decode(rawHex), {
      allowUnknownOutputs: true,
      allowUnknownInputs: true,
      disableScriptCheck: true,
    });
    for (let i = 0; i < tx.inputsLength; i++) {
      const input = tx.getInput(i);
      if (input.txid && hex.encode(input.txid) === txid && input.index === vout) return true;
    }
  } catch {
    // not a transaction this guardian co-signed: it spends nothing of ours
  }
  return false;
}

/** The error of a request failed because the network never answered: settleLate looks again. */
export const UNANSWERED = 'the network never answered';

/** How long after it failed unanswered a request is still looked for on the chain. */
export const LATE_SETTLE_SECONDS = 24 * 60 * 60;

interface FailedRow {
  nonce: string;
  txid: string | null;
  raw_hex: string | null;
  effects: string | null;
}

/**
 * Commits the effects of a failed request whose transaction the chain holds after all, if they
 * still apply: an open's vault not recorded yet, an update's vault still at the output the
 * transaction spends. Run under the vault's lock. True when committed.
 */
async function commitLate(g: GuardianContext, row: FailedRow): Promise<boolean> {
  if (!row.txid || !row.raw_hex || !row.effects) return false;
  const effects = JSON.parse(row.effects) as Effects;
  const vaultId = effectsVaultId(effects, row.txid);
  const vault = await getVault(g.db, vaultId);
  if (
    effects.kind === 'open'
      ? vault !== null
      : !vault || !spends(row.raw_hex, vault.vault_txid, vault.vault_vout)
  )
    return false;
  if (!(await chainHolds(g.chain, row.txid))) return false;
  const now = g.now();
  const committed = await g.db.transaction().execute(async (trx) => {
    const moved = await trx
      .updateTable('guardian_requests')
      .set({ state: 'broadcast', error: null, updated_at: now })
      .where('nonce', '=', row.nonce)
      .where('state', '=', 'failed')
      .executeTakeFirst();
    if (Number(moved.numUpdatedRows) !== 1) return false;
    await applyEffects(trx, effects, row.txid!, now);
    return true;
  });
  if (committed) for (const id of changedVaultIds(effects, row.txid!)) g.vaultChanged(id);
  if (committed)
    g.log.warn(
      { nonce: row.nonce, txid: row.txid, vault: vaultId },
      'a failed request reached the chain after all: its effects are committed',
    );
  return committed;
}

const failedWithTransaction = (g: GuardianContext) =>
  g.db
    .selectFrom('guardian_requests')
    .select(['nonce', 'txid', 'raw_hex', 'effects', 'vault_pubkey'])
    .where('state', '=', 'failed')
    .where('txid', 'is not', null)
    .where('raw_hex', 'is not', null)
    .where('effects', 'is not', null);

/**
 * A vault whose stored output is spent by a transaction of ours whose request was failed (its
 * answer lost, the network silent past the bound): that request's effects are committed now, so
 * the vault follows its output on the chain. Run under the vault's lock. True when the vault moved.
 */
export async function catchUpVault(g: GuardianContext, vault: VaultRow): Promise<boolean> {
  // A speed-up of its output whose answer was lost, on the chain after all.
  if (await settleVaultReplacement(g, vault)) return true;
  const rows = await failedWithTransaction(g)
    .where('vault_id', '=', vault.vault_id)
    .orderBy('updated_at', 'desc')
    .limit(5)
    .execute();
  for (const row of rows) {
    if (!spends(row.raw_hex!, vault.vault_txid, vault.vault_vout)) continue;
    if (await commitLate(g, row)) return true;
  }
  return false;
}

/**
 * Requests failed because the network never answered, looked for on the chain again for a day
 * (each recovery round): one whose transaction is there after all is committed, an open's vault
 * recorded. Returns the nonces committed.
 */
export async function settleLate(g: GuardianContext): Promise<string[]> {
  const rows = await failedWithTransaction(g)
    .where('error', 'like', `${UNANSWERED}%`)
    .where('updated_at', '>', g.now() - LATE_SETTLE_SECONDS)
    .orderBy('updated_at')
    .limit(50)
    .execute();
  const committed: string[] = [];
  for (const row of rows) {
    const holder = { owner: lockOwner(row.nonce), instanceId: g.instance.id };
    if (!(await acquireLocks(g.db, [vaultLock(row.vault_pubkey)], holder, g.now()))) continue;
    try {
      if (await commitLate(g, row)) committed.push(row.nonce);
    } finally {
      await releaseLocks(g.db, holder.owner);
    }
  }
  return committed;
}

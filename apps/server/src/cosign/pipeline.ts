// The life of one guardian request, the same for every vault action: cheap checks first (the
// envelope, the PSBT's shape and the vault key's signature), so junk never holds a vault; then the
// vault locked in the database (locks.ts), the request recorded (a replayed nonce is refused),
// validated, co-signed (every signature checked), its treasury output locked, re-checked against
// the vault as it is now, broadcast, its effects stored. Each step is persisted, so a restart can tell a request that
// reached the network from one that did not (recover.ts), and each step is reported to the caller
// as the tracker's progress (SPEC §4).
import type { SignedVaultRequest } from '@unit/protocol';
import type { Approvals, SignedQuote } from '@unit/protocol/wire';
import { ChainUnavailableError } from '../chain/port';
import { DomainError } from '../errors';
import type { RpcContext } from '../rpc/json-rpc';
import type { PipelineDeps } from './context';
import { applyEffects, changedVaultIds, saveEffects, type Effects } from './effects';
import {
  acquireLocks,
  lockOwner,
  releaseLocks,
  renewLocks,
  treasuryLock,
  type LockHolder,
} from './locks';
import { advanceOwnedRequest, recordOwnedRequest, retakeFailedRequest } from './ownership';
import { chainHolds, handOff, sendOrFind } from './settle';
import { markCosigned } from './cosigned';
import { advanceGuardianRequest, getGuardianRequest, openRequestsForVault } from '../store';

/** Longest a signed request may stay valid: long enough for a hardware wallet, short for replays. */
export const MAX_REQUEST_LIFETIME_SECONDS = 600;
/** ARCHITECTURE.md: a quote older than 300 s is refused. */
export const QUOTE_MAX_AGE_SECONDS = 300;

/** What an action hands the pipeline once it has checked the request against every rule. */
export interface Prepared<R> {
  /** The vault the request spends or creates, for the request row. */
  vaultId: string | null;
  /** The treasury output an open or a borrow spends: locked from validation to broadcast. */
  treasuryOutput: { txid: string; vout: number } | null;
  /**
   * Whether the vaults the request was validated against are still as they were (same output, same
   * status). Asked under the locks just before the broadcast.
   */
  stillCurrent(): Promise<boolean>;
  /**
   * Adds the guardian's signatures, finalizes and returns the raw transaction. With the guardian
   * network, `onApprovals` hears each guardian's decision as it arrives (tracker step 4).
   */
  cosign(onApprovals: (approvals: Approvals) => void): Promise<{ txid: string; hex: string }>;
  /** What the broadcast transaction changes in the store; saved first so a restart can commit it. */
  effects: Effects;
  result(txid: string): R;
}

/** What the cheap checks hand the pipeline: the locks the request needs. */
export interface Prechecked {
  lockKeys: string[];
}

export function checkEnvelope(
  request: SignedVaultRequest<unknown>,
  deps: Pick<PipelineDeps, 'oracle' | 'now'>,
): void {
  const now = deps.now();
  if (request.expires_at <= now) throw new DomainError('expired', 'This request has expired');
  if (request.expires_at > now + MAX_REQUEST_LIFETIME_SECONDS)
    throw new DomainError('bad_request', 'The request expiry is too far in the future');
  if (!deps.oracle.verifyQuote(request.quote))
    throw new DomainError('bad_signature', 'The price quote is not signed by the oracle');
  if (
    now - request.quote.time > QUOTE_MAX_AGE_SECONDS ||
    now - request.quote.ts > QUOTE_MAX_AGE_SECONDS
  )
    throw new DomainError('quote_expired', 'The price quote has expired; please try again');
}

export async function runRequest<R>(
  method: string,
  request: SignedVaultRequest<unknown>,
  ctx: RpcContext,
  deps: PipelineDeps,
  precheck: () => Prechecked,
  prepare: () => Promise<Prepared<R>>,
): Promise<R> {
  // Cheap checks, nothing read or locked yet: junk naming someone else's vault stops here.
  checkEnvelope(request, deps);
  const { lockKeys } = precheck();
  const vaultPubkey = request.vault_pubkey.toLowerCase();
  const holder: LockHolder = { owner: lockOwner(request.nonce), instanceId: deps.instance.id };
  const { owner } = holder;
  if (!(await acquireLocks(deps.db, lockKeys, holder, deps.now())))
    throw new DomainError('vault_busy', 'Another request is already spending this vault');
  const progress = (step: 2 | 3 | 4 | 5, approvals?: Approvals) =>
    ctx.notify('vault.progress', {
      request: request.nonce,
      step,
      ...(approvals ? { approvals } : {}),
    });
  try {
    // A request a stopped process left in flight may still reach the network (recover.ts).
    const inFlight = await openRequestsForVault(deps.db, vaultPubkey, deps.now());
    if (inFlight.length > 0)
      throw new DomainError('vault_busy', 'Another request is already spending this vault');
    const row = {
      nonce: request.nonce,
      method,
      vault_pubkey: vaultPubkey,
      expires_at: request.expires_at,
    };
    const fresh =
      (await recordOwnedRequest(deps.db, row, deps.instance.id, deps.now())) ||
      (await retryFailed(row, deps));
    if (!fresh) throw new DomainError('replayed', 'This request was already submitted');
    progress(2);
    const withQuorum = { ...row, quorum: request.quote.quorum };
    return await finish(withQuorum, deps, prepare, progress, holder, lockKeys);
  } finally {
    await releaseLocks(deps.db, owner);
  }
}

/**
 * The same signed request sent again after it failed without reaching the network (refused before
 * co-signing, or its transaction refused and not on the chain) is taken as a new attempt: the
 * user need not sign again. One that reached the network, or may have, stays refused as a replay.
 */
async function retryFailed(
  request: Parameters<typeof retakeFailedRequest>[1],
  deps: PipelineDeps,
): Promise<boolean> {
  const row = await getGuardianRequest(deps.db, request.nonce);
  if (row?.state !== 'failed') return false;
  if (row.txid !== null && (await chainHolds(deps.chain, row.txid)) !== false) return false;
  return retakeFailedRequest(deps.db, request, row.txid, deps.instance.id, deps.now());
}

async function finish<R>(
  request: {
    nonce: string;
    method: string;
    vault_pubkey: string;
    expires_at: number;
    quorum?: SignedQuote['quorum'];
  },
  deps: PipelineDeps,
  prepare: () => Promise<Prepared<R>>,
  progress: (step: 2 | 3 | 4 | 5, approvals?: Approvals) => void,
  holder: LockHolder,
  keys: string[],
): Promise<R> {
  const { nonce } = request;
  const fail = (error: string) =>
    advanceGuardianRequest(deps.db, nonce, 'failed', { error }, deps.now());
  let prepared: Prepared<R>;
  try {
    prepared = await prepare();
  } catch (error) {
    await fail(error instanceof Error ? error.message : String(error));
    throw error;
  }
  await saveEffects(deps.db, nonce, prepared.effects);
  await advanceGuardianRequest(
    deps.db,
    nonce,
    'validated',
    prepared.vaultId ? { vault_id: prepared.vaultId } : {},
    deps.now(),
  );
  progress(3);

  let signed: { txid: string; hex: string };
  let lastApprovals: Approvals | undefined;
  const held = [...keys];
  try {
    // Co-signing checks every input's signature against the chain's outputs (actions.ts).
    // With the guardian network, step 4 shows each guardian's decision as it arrives.
    signed = await prepared.cosign((approvals) => {
      lastApprovals = approvals;
      progress(4, approvals);
    });
    // The treasury output becomes this request's own only now, once the request has proved its
    // funds and signatures: a reservation alone holds nothing (reserve.ts).
    const treasury = prepared.treasuryOutput;
    if (treasury) {
      const key = treasuryLock(treasury.txid, treasury.vout);
      const output = (await acquireLocks(deps.db, [key], holder, deps.now()))
        ? await deps.chain.output(treasury.txid, treasury.vout)
        : null;
      if (!output || output.spent)
        throw new DomainError(
          'reservation_missing',
          'The reserved treasury UNIT was just taken by another request; please try again',
        );
      held.push(key);
    }
  } catch (error) {
    await fail(error instanceof Error ? error.message : String(error));
    throw error instanceof DomainError || error instanceof ChainUnavailableError
      ? error
      : new DomainError('bad_transaction', 'The transaction could not be co-signed');
  }
  // The last look before the network: the locks are still ours (renewed for the broadcast), and
  // the vault is the one validated; a vault the sweep or another request changed meanwhile is
  // refused here, never broadcast.
  const current =
    (await renewLocks(deps.db, held, holder.owner, deps.now())) && (await prepared.stillCurrent());
  if (!current) {
    await fail('the vault changed while the request was checked');
    throw new DomainError(
      'vault_changed',
      'The vault changed while this request was being checked; please try again',
    );
  }
  // Persisted before the broadcast: after a crash, recover.ts asks the chain about this txid
  // instead of broadcasting blindly. Conditional on the request still being this instance's: one
  // another instance took over as left behind (ownership.ts) never reaches the network from here.
  // In network mode the quote's signed prices are kept with it, for auditors (cosigned.ts).
  const owned = await markCosigned(deps.db, request, deps.instance.id, signed, deps.now());
  if (!owned)
    throw new DomainError(
      'vault_changed',
      'This request was settled by another server while it was checked; please try again',
    );
  progress(4, lastApprovals);
  progress(5);
  // A lost answer is not a refusal: the chain tells whether the transaction got through (settle.ts).
  const sent = await sendOrFind(deps.chain, signed.txid, signed.hex);
  // Each broadcast line names the action, the vault and the request (its nonce, the id the page
  // shows), so a user's "my borrow failed" is found in the log.
  const trace = {
    action: request.method,
    vault: request.vault_pubkey,
    ...(prepared.vaultId ? { vaultId: prepared.vaultId } : {}),
    request: nonce,
    txid: signed.txid,
  };
  if (sent.outcome === 'refused') {
    deps.log.warn({ ...trace, reason: sent.reason }, 'broadcast refused');
    await fail(sent.reason);
    throw new DomainError(
      'broadcast_failed',
      `The network refused the transaction: ${sent.reason}`,
    );
  }
  if (sent.outcome === 'unknown') {
    deps.log.warn({ ...trace, reason: sent.reason }, 'broadcast unanswered');
    // Recovery settles it from the chain, with the vault locked until then; one taken over meanwhile
    // is already recovery's.
    await handOff(deps.db, request, deps.instance.id, holder.owner, sent.reason, deps.now());
    throw new DomainError(
      'chain_unavailable',
      'The Bitcoin network did not answer, so this transaction may or may not have gone through. ' +
        'The vault is settled from the chain as soon as it answers; check it again in a minute',
    );
  }
  const now = deps.now();
  await deps.db.transaction().execute(async (trx) => {
    // A request taken over after its broadcast is committed by the recoverer, from the same
    // effects: committing here too would count them twice.
    if (
      await advanceOwnedRequest(
        trx,
        nonce,
        deps.instance.id,
        'cosigned',
        'broadcast',
        { txid: signed.txid },
        now,
      )
    )
      await applyEffects(trx, prepared.effects, signed.txid, now);
  });
  for (const id of changedVaultIds(prepared.effects, signed.txid)) deps.vaultChanged(id);
  deps.log.info(trace, 'vault transaction broadcast');
  return prepared.result(signed.txid);
}

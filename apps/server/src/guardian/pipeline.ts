// The life of one guardian request, the same for every vault action: cheap checks first (the
// envelope, the PSBT's shape and the vault key's signature), so junk never holds a vault; then the
// vault locked in the database (locks.ts), the request recorded (a replayed nonce is refused),
// validated, co-signed (every signature checked), its treasury output locked, re-checked against
// the vault as it is now, broadcast, its effects stored. Each step is persisted, so a restart can tell a request that
// reached the network from one that did not (recover.ts), and each step is reported to the caller
// as the tracker's progress (SPEC §4).
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { SignedQuote, SignedVaultRequest } from '@unit/protocol';
import { BroadcastError, type Chain } from '../chain/port';
import { DomainError, type RpcContext } from '../rpc/json-rpc';
import { applyEffects, saveEffects, type Effects } from './effects';
import { acquireLocks, lockOwner, releaseLocks, renewLocks, treasuryLock } from './locks';
import { advanceOwnedRequest, recordOwnedRequest, type GuardianInstance } from './ownership';
import { advanceGuardianRequest, openRequestsForVault, type Database } from '../store';

/** Longest a signed request may stay valid: long enough for a hardware wallet, short for replays. */
export const MAX_REQUEST_LIFETIME_SECONDS = 600;
/** ARCHITECTURE.md: a quote older than 300 s is refused. */
export const QUOTE_MAX_AGE_SECONDS = 300;

export interface OracleForGuardian {
  verifyQuote(quote: SignedQuote): boolean;
  thresholdHash(thCents: bigint, stamp: number): Uint8Array;
  revealedSecret(thCents: bigint, stamp: number): Uint8Array | null;
}

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
  /** Adds the guardian's signatures, finalizes and returns the raw transaction. */
  cosign(): { txid: string; hex: string };
  /** What the broadcast transaction changes in the store; saved first so a restart can commit it. */
  effects: Effects;
  result(txid: string): R;
}

export interface PipelineDeps {
  db: Kysely<Database>;
  chain: Chain;
  oracle: OracleForGuardian;
  log: Logger;
  now: () => number;
  instance: GuardianInstance;
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
  const owner = lockOwner(request.nonce);
  if (!(await acquireLocks(deps.db, lockKeys, owner, deps.now())))
    throw new DomainError('vault_busy', 'Another request is already spending this vault');
  const progress = (step: 2 | 3 | 4 | 5) =>
    ctx.notify('vault.progress', { request: request.nonce, step });
  try {
    // A request a stopped process left in flight may still reach the network (recover.ts).
    const inFlight = await openRequestsForVault(deps.db, vaultPubkey, deps.now());
    if (inFlight.length > 0)
      throw new DomainError('vault_busy', 'Another request is already spending this vault');
    const fresh = await recordOwnedRequest(
      deps.db,
      { nonce: request.nonce, method, vault_pubkey: vaultPubkey, expires_at: request.expires_at },
      deps.instance.id,
      deps.now(),
    );
    if (!fresh) throw new DomainError('replayed', 'This request was already submitted');
    progress(2);
    return await finish(request.nonce, deps, prepare, progress, { keys: lockKeys, owner });
  } finally {
    await releaseLocks(deps.db, owner);
  }
}

async function finish<R>(
  nonce: string,
  deps: PipelineDeps,
  prepare: () => Promise<Prepared<R>>,
  progress: (step: 2 | 3 | 4 | 5) => void,
  locks: { keys: string[]; owner: string },
): Promise<R> {
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
  const held = [...locks.keys];
  try {
    // Co-signing checks every input's signature against the chain's outputs (actions.ts).
    signed = prepared.cosign();
    // The treasury output becomes this request's own only now, once the request has proved its
    // funds and signatures: a reservation alone holds nothing (reserve.ts).
    const treasury = prepared.treasuryOutput;
    if (treasury) {
      const key = treasuryLock(treasury.txid, treasury.vout);
      const output = (await acquireLocks(deps.db, [key], locks.owner, deps.now()))
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
    throw error instanceof DomainError
      ? error
      : new DomainError('bad_transaction', 'The transaction could not be co-signed');
  }
  // The last look before the network: the locks are still ours (renewed for the broadcast), and
  // the vault is the one validated; a vault the sweep or another request changed meanwhile is
  // refused here, never broadcast.
  const current =
    (await renewLocks(deps.db, held, locks.owner, deps.now())) && (await prepared.stillCurrent());
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
  const owned = await advanceOwnedRequest(
    deps.db,
    nonce,
    deps.instance.id,
    'validated',
    'cosigned',
    { txid: signed.txid, raw_hex: signed.hex },
    deps.now(),
  );
  if (!owned)
    throw new DomainError(
      'vault_changed',
      'This request was settled by another server while it was checked; please try again',
    );
  progress(4);
  progress(5);
  try {
    await deps.chain.broadcast(signed.hex);
  } catch (error) {
    const reason = error instanceof BroadcastError ? error.message : 'the network did not answer';
    deps.log.warn({ nonce, txid: signed.txid, reason }, 'broadcast refused');
    await fail(reason);
    throw new DomainError('broadcast_failed', `The network refused the transaction: ${reason}`);
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
  deps.log.info({ nonce, txid: signed.txid }, 'vault transaction broadcast');
  return prepared.result(signed.txid);
}

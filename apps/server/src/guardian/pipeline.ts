// The life of one guardian request, the same for every vault action: recorded (a replayed nonce is
// refused), the vault locked, validated, co-signed, broadcast, its effects stored. Each step is
// persisted, so a restart can tell a request that reached the network from one that did not
// (recover.ts), and each step is reported to the caller as the tracker's progress (SPEC §4).
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { SignedQuote, SignedVaultRequest } from '@unit/protocol';
import { BroadcastError, type Chain } from '../chain/port';
import { DomainError, type RpcContext } from '../rpc/json-rpc';
import { applyEffects, saveEffects, type Effects } from './effects';
import {
  advanceGuardianRequest,
  openRequestsForVault,
  recordGuardianRequest,
  type Database,
} from '../store';

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
  /** The vault the request spends or creates, for the lock and the request row. */
  vaultId: string | null;
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
}

/** Vaults with a request in this process right now; the database check covers other processes. */
const lockedVaults = new Set<string>();

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
  prepare: () => Promise<Prepared<R>>,
): Promise<R> {
  checkEnvelope(request, deps);
  const lockKey = request.vault_pubkey.toLowerCase();
  if (lockedVaults.has(lockKey))
    throw new DomainError('vault_busy', 'Another request is already spending this vault');
  lockedVaults.add(lockKey);
  const progress = (step: 2 | 3 | 4 | 5) =>
    ctx.notify('vault.progress', { request: request.nonce, step });
  try {
    const inFlight = await openRequestsForVault(deps.db, lockKey, deps.now());
    if (inFlight.length > 0)
      throw new DomainError('vault_busy', 'Another request is already spending this vault');
    const fresh = await recordGuardianRequest(
      deps.db,
      {
        nonce: request.nonce,
        method,
        vault_id: null,
        vault_pubkey: lockKey,
        expires_at: request.expires_at,
      },
      deps.now(),
    );
    if (!fresh) throw new DomainError('replayed', 'This request was already submitted');
    progress(2);
    return await finish(request.nonce, deps, prepare, progress);
  } finally {
    lockedVaults.delete(lockKey);
  }
}

async function finish<R>(
  nonce: string,
  deps: PipelineDeps,
  prepare: () => Promise<Prepared<R>>,
  progress: (step: 2 | 3 | 4 | 5) => void,
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
  try {
    signed = prepared.cosign();
  } catch (error) {
    await fail(error instanceof Error ? error.message : String(error));
    throw error instanceof DomainError
      ? error
      : new DomainError('bad_transaction', 'The transaction could not be co-signed');
  }
  // Persisted before the broadcast: after a crash, recover.ts asks the chain about this txid
  // instead of broadcasting blindly.
  await advanceGuardianRequest(
    deps.db,
    nonce,
    'cosigned',
    { txid: signed.txid, raw_hex: signed.hex },
    deps.now(),
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
    await applyEffects(trx, prepared.effects, signed.txid, now);
    await advanceGuardianRequest(trx, nonce, 'broadcast', { txid: signed.txid }, now);
  });
  deps.log.info({ nonce, txid: signed.txid }, 'vault transaction broadcast');
  return prepared.result(signed.txid);
}

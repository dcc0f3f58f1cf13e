// A guardian's checks of a signing message's fields, shared by its two-round handlers
// (signing-rounds.ts) and its one-round one: the session id and attempt, the commitment list, and
// its policy's decision within its time.
import type { NonceCommitments } from '@noble/curves/abstract/frost.js';
import { ProtocolError } from './envelope';
import { commitmentsFromJson, frostIdentifier } from './frost';
import type { GuardianSet } from './guardian-set';

export interface SignRequest {
  sessionId: string;
  /** the 32-byte digest to sign (a BIP-341 sighash in the vault flows) */
  message: Uint8Array;
  /** what the coordinator says the digest is for; the guardian checks it against its own view */
  context: unknown;
}

export type Decision = { approve: true } | { approve: false; reason: string };
export type Validator = (req: SignRequest) => Decision | Promise<Decision>;

// 32 random bytes, or a vault request's nonce (16..32 bytes) and the input it signs: `<hex>:<n>`.
const SESSION_ID = /^(?:[0-9a-f]{64}|[0-9a-f]{32,64}:[0-9]{1,4})$/;
/**
 * The highest attempt number: a coordinator numbers each signing's commitments from a base that
 * moves with time (up to n - t + 2 per guardian under ROAST), so a request signed again never
 * meets a nonce it used.
 */
export const MAX_ATTEMPT = 100_000;

/** A decision must come before the coordinator's own time-out (5 s) gives up on this guardian. */
const VALIDATE_TIMEOUT_MS = 4_000;
/** A signing's session and attempt (their JSON types checked by the message table). */
export function parseSession(b: { sessionId: string; attempt?: number | undefined }): {
  sessionId: string;
  attempt: number;
} {
  if (!SESSION_ID.test(b.sessionId))
    throw new ProtocolError('malformed', 'sessionId must be 32 bytes of hex or <nonce>:<input>');
  const attempt = b.attempt ?? 0;
  if (attempt > MAX_ATTEMPT)
    throw new ProtocolError('malformed', `attempt must be 0..${MAX_ATTEMPT}`);
  return { sessionId: b.sessionId, attempt };
}

/** The decision within VALIDATE_TIMEOUT_MS; a throw or a time-out is a refusal. */
export async function decide(validate: Validator, req: SignRequest): Promise<Decision> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      Promise.resolve(validate(req)),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error('timed out')), VALIDATE_TIMEOUT_MS);
      }),
    ]);
  } catch (e) {
    return { approve: false, reason: `validation failed: ${(e as Error).message}` };
  } finally {
    clearTimeout(timer);
  }
}

/**
 * A session's commitment list, checked: exactly t entries, of distinct guardians of the set, this
 * guardian's own among them; a `malformed` or `refused` error saying what is wrong.
 */
export function signingList(
  list: readonly unknown[],
  set: GuardianSet,
  own: string,
): NonceCommitments[] {
  if (list.length !== set.t)
    throw new ProtocolError('malformed', `signing needs exactly ${set.t} commitments`);
  const commitments = list.map((c) => {
    try {
      return commitmentsFromJson(c);
    } catch (e) {
      throw new ProtocolError('malformed', (e as Error).message);
    }
  });
  const ids = new Set(commitments.map((c) => c.identifier));
  const allowed = new Set(set.members.map((m) => frostIdentifier(m.id)));
  if (ids.size !== commitments.length || [...ids].some((i) => !allowed.has(i)))
    throw new ProtocolError(
      'malformed',
      'commitments must come from distinct guardians of the set',
    );
  if (!ids.has(own))
    throw new ProtocolError('refused', 'the list does not carry this guardian’s commitment');
  return commitments;
}

// A guardian's preprocessed FROST nonces (RFC 9591 section 5.1, round one ahead of any message):
// a coordinator asks for a batch (`sign/preprocess`), and each nonce pair is recorded as issued in
// the guardian's store before its commitment leaves, kept in this process's memory only, and bound
// to the coordinator that asked. A one-round request (`sign/once`) names one of them in its list;
// it is taken out of memory and recorded spent before the share exists, or burned when the request
// is refused. A restart loses every pair in memory and marks every issued row abandoned
// (store.abandonIssuedNonces), so a commitment handed out before a crash can never be signed with.
import type { FrostSecret, Nonces } from '@noble/curves/abstract/frost.js';
import { randomBytes } from '@noble/hashes/utils.js';
import { bytesToHex } from './canonical';
import { ProtocolError } from './envelope';
import { commitmentsToJson, frost, type CommitmentsJson } from './frost';
import { MAX_ATTEMPT } from './signing-checks';
import type { SessionStore } from './store';

/** A batch is at most this many commitments. */
export const MAX_PREPROCESS_BATCH = 64;
/** Unused commitments held per coordinator; a new batch past it burns that coordinator's oldest. */
export const MAX_PREPROCESSED = 256;
/** A preprocessed nonce unused this long is burned; a coordinator uses its own for less (pool). */
export const PREPROCESSED_TTL_MS = 30 * 60_000;

/** The store row of a preprocessed nonce: its own "session", attempt 0, keyed by its commitment. */
export function preprocessedRow(hiding: string): { sessionId: string; attempt: number } {
  return { sessionId: `pre:${hiding}`, attempt: 0 };
}

/**
 * The attempt a spent preprocessed nonce is filed under in its session's rows: past every attempt
 * of the two-round path (which refuses any above MAX_ATTEMPT), told apart by its commitment.
 */
export function preprocessedAttempt(hiding: string): number {
  return MAX_ATTEMPT + 1 + Number.parseInt(hiding.slice(2, 8), 16);
}

interface Held {
  nonces: Nonces;
  binding: string;
  owner: string;
  at: number;
}

export class PreprocessedNonces {
  /** by hiding commitment (hex), in issue order; memory only */
  private readonly held = new Map<string, Held>();
  /**
   * This process's batches: a coordinator that sees another epoch knows this guardian restarted
   * and every commitment of an earlier epoch is burned.
   */
  readonly epoch = bytesToHex(randomBytes(8));

  constructor(
    private readonly store: SessionStore,
    private readonly clock: () => number = Date.now,
  ) {}

  get size(): number {
    return this.held.size;
  }

  /** `count` fresh commitments for `owner`, each recorded issued before this returns. */
  async batch(share: FrostSecret, owner: string, count: number): Promise<CommitmentsJson[]> {
    if (!Number.isInteger(count) || count < 1 || count > MAX_PREPROCESS_BATCH)
      throw new ProtocolError('malformed', `count must be 1..${MAX_PREPROCESS_BATCH}`);
    await this.expire();
    await this.makeRoom(owner, count);
    const out: CommitmentsJson[] = [];
    for (let i = 0; i < count; i++) {
      const gen = frost.commit(share);
      const c = commitmentsToJson(gen.commitments);
      const row = preprocessedRow(c.hiding);
      // Recorded before the commitment leaves: a crash from here on burns it (abandoned at start).
      if (!(await this.store.recordIssuedNonce(row.sessionId, row.attempt, c.hiding, c.binding)))
        continue; // a hiding commitment seen before: never twice (only a broken RNG gets here)
      this.held.set(c.hiding, { nonces: gen.nonces, binding: c.binding, owner, at: this.clock() });
      out.push(c);
    }
    return out;
  }

  /** Whether `c` is one of this guardian's unused commitments issued to `owner` (no side effect). */
  holds(owner: string, c: { hiding: string; binding: string }): boolean {
    const h = this.held.get(c.hiding);
    return !!h && h.owner === owner && h.binding === c.binding && !this.stale(h);
  }

  /**
   * Takes the nonce pair of `c` out of memory and records it spent for `sessionId` (its row filed
   * under that session); throws `nonce-unavailable` when it is not an unused commitment this
   * guardian issued to `owner`. The pair leaves memory before the first await, so two requests
   * naming it can never both have it.
   */
  async spend(
    owner: string,
    c: { hiding: string; binding: string },
    sessionId: string,
  ): Promise<Nonces> {
    const h = this.held.get(c.hiding);
    if (!h || h.owner !== owner || h.binding !== c.binding || this.stale(h)) throw unavailable();
    this.held.delete(c.hiding);
    const { sessionId: pre } = preprocessedRow(c.hiding);
    const filed = preprocessedAttempt(c.hiding);
    if (!(await this.store.spendPreprocessed(pre, sessionId, filed))) throw unavailable();
    return h.nonces;
  }

  /** A commitment named in a request this guardian refused: never used for anything else. */
  async burn(owner: string, c: { hiding: string; binding: string }): Promise<void> {
    const h = this.held.get(c.hiding);
    if (!h || h.owner !== owner || h.binding !== c.binding) return;
    this.held.delete(c.hiding);
    h.nonces.hiding.fill(0);
    h.nonces.binding.fill(0);
    const row = preprocessedRow(c.hiding);
    await this.store.abandonNonce(row.sessionId, row.attempt);
  }

  private stale(h: Held): boolean {
    return this.clock() - h.at > PREPROCESSED_TTL_MS;
  }

  private async expire(): Promise<void> {
    for (const [hiding, h] of this.held) {
      if (!this.stale(h)) break; // issue order: the rest are younger
      await this.burn(h.owner, { hiding, binding: h.binding });
    }
  }

  /** Burns `owner`'s oldest until a batch of `count` fits under MAX_PREPROCESSED. */
  private async makeRoom(owner: string, count: number): Promise<void> {
    let mine = 0;
    for (const h of this.held.values()) if (h.owner === owner) mine++;
    for (const [hiding, h] of this.held) {
      if (mine + count <= MAX_PREPROCESSED) return;
      if (h.owner !== owner) continue;
      await this.burn(owner, { hiding, binding: h.binding });
      mine--;
    }
  }
}

function unavailable(): ProtocolError {
  return new ProtocolError(
    'nonce-unavailable',
    'the list does not carry an unused commitment this guardian preprocessed for this coordinator',
    409,
  );
}

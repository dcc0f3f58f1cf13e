// The coordinator: holds no share, only an identity key listed in the set. It asks every guardian
// to decide, runs the two FROST rounds with exactly t approving guardians, aggregates the shares
// (checking each against its guardian's verifying share when the aggregate fails), and on a bad
// share or a guardian that drops between rounds names it, leaves it out and retries with another t
// and fresh nonces. It can only obtain a signature that t guardians approved.
import type { FrostPublic, NonceCommitments } from '@noble/curves/abstract/frost.js';
import { schnorr } from '@noble/curves/secp256k1.js';
import { randomBytes } from '@noble/hashes/utils.js';
import { groupCommitmentX, signatureOf } from './aggregate';
import { bytesToHex, parseHex } from './canonical';
import {
  commitmentsFromJson,
  commitmentsToJson,
  frost,
  frostIdentifier,
  publicFromJson,
} from './frost';
import { type GuardianSet, type Member } from './guardian-set';
import type { Identity } from './identity';
import { collectPriceQuorum, type PriceQuote } from './price/quorum';
import { callParty, type CallResult } from './transport';

export type SignEvent =
  | { kind: 'decision'; guardian: number; approved: boolean; reason: string | null }
  | { kind: 'committed'; sessionId: string; attempt: number; signers: number[] }
  | { kind: 'excluded'; attempt: number; guardian: number; reason: string }
  | { kind: 'signed'; attempt: number; signers: number[] };

export interface SignResult {
  /** BIP-340 signature (64 bytes) under the group key */
  signature: Uint8Array;
  signers: number[];
  attempts: number;
  /** guardians named and left out, with why */
  excluded: { guardian: number; reason: string }[];
  decisions: { guardian: number; approved: boolean; reason: string | null }[];
}

/** Not enough guardians approved or stayed for a signature; nothing was signed. */
export class QuorumError extends Error {
  constructor(
    message: string,
    readonly sessionId: string,
    readonly decisions: SignResult['decisions'],
    readonly excluded: SignResult['excluded'],
  ) {
    super(message);
  }
}

function describe(e: unknown): string {
  const err = e as Error & { code?: string };
  if (err.name === 'TimeoutError') return 'timed out';
  const cause = (err as { cause?: { code?: string } }).cause;
  if (cause?.code) return `unreachable (${cause.code})`;
  return err.code ? `${err.code}: ${err.message}` : err.message;
}

const MAX_SEEN_COMMITMENTS = 200_000;

export interface SignOptions {
  /** attempts with fresh nonces before giving up (default 4) */
  maxAttempts?: number;
  /** wait for every guardian's decision (or its time-out) instead of the first t approvals */
  waitForAll?: boolean;
  /** guardian ids to choose first among the approvers, e.g. the ones closest to the coordinator */
  prefer?: number[];
  /**
   * The session's id instead of a random one (the app server uses `${request nonce}:${input}`, so
   * every guardian files its decision under the request it is about). A guardian keeps its first
   * decision on a session, so a caller reusing an id gets the same answers.
   */
  sessionId?: string;
  /**
   * The first attempt's number (default 1). A caller that may sign the same session again (after
   * a failure, or from another process) starts past the attempts it used: a guardian gives one
   * nonce per (session, attempt), ever.
   */
  firstAttempt?: number;
  /**
   * The one check of the group's signature, instead of the coordinator's BIP-340 verification
   * under the group key: for a caller that verifies the signature anyway where it is used (the
   * app server checks the whole transaction by `verifyInputs`). False makes the coordinator check
   * the shares one by one, name who cheated and sign again without them.
   */
  check?: (signature: Uint8Array) => boolean | Promise<boolean>;
}

export class Coordinator {
  private readonly pub: FrostPublic;
  private readonly groupKey: Uint8Array;
  /** Every nonce commitment seen: a guardian that sends one twice reuses a nonce and is named. */
  private readonly seenCommitments = new Set<string>();

  constructor(
    readonly set: GuardianSet,
    private readonly identity: Identity,
    private readonly timeoutMs = 5_000,
  ) {
    if (!set.coordinators.some((c) => c.identityKey === identity.publicKey))
      throw new Error('this identity is not a coordinator of the guardian set');
    this.pub = publicFromJson(set.frost!, set.t, set.n);
    this.groupKey = parseHex(set.groupKey!, 32, 'group key');
  }

  /**
   * Every guardian's signed price, checked against the set, and the protocol's quorum of them:
   * the quote with the t or more signed prices it is the median of and the hash committing to them.
   */
  priceQuorum(now?: number): Promise<PriceQuote> {
    return collectPriceQuorum(this.set, {
      timeoutMs: this.timeoutMs,
      ...(now === undefined ? {} : { now }),
    });
  }

  private call(m: Member, type: string, body: unknown): Promise<CallResult> {
    return callParty({
      url: m.url,
      identity: this.identity,
      to: m.identityKey,
      setVersion: this.set.version,
      type,
      body,
      timeoutMs: this.timeoutMs,
      // The co-signing rounds concern no one else: a MAC under the pair's key, not a signature.
      auth: 'mac',
    });
  }

  /**
   * Sends the request to every guardian; resolves once t approved (or, with `waitForAll`, every
   * guardian decided). `decisions` and `approvers` keep filling as late answers arrive; `pending`
   * settles when all have.
   */
  private async propose(
    sessionId: string,
    message: Uint8Array,
    context: unknown,
    onEvent: (e: SignEvent) => void | Promise<void>,
    waitForAll: boolean,
    commitAttempt: number,
  ): Promise<{
    decisions: SignResult['decisions'];
    approvers: Member[];
    /** `commitAttempt`'s commitments that came with the approvals, by guardian id */
    early: Map<number, unknown>;
    pending: Promise<void>[];
  }> {
    const { t } = this.set;
    const decisions: SignResult['decisions'] = [];
    const approvers: Member[] = [];
    const early = new Map<number, unknown>();
    // Every guardian decides; we stop waiting once t approved, the rest can still join a retry.
    const pending = this.set.members.map(async (m) => {
      let approved = false;
      let reason: string | null = null;
      try {
        const { payload } = await this.call(m, 'sign/propose', {
          sessionId,
          message: bytesToHex(message),
          context,
          commitAttempt,
        });
        const b = payload.body as { approved?: unknown; reason?: unknown; commitments?: unknown };
        approved = b.approved === true;
        reason = approved ? null : String(b.reason ?? 'refused');
        if (approved && b.commitments !== undefined) early.set(m.id, b.commitments);
      } catch (e) {
        reason = describe(e);
      }
      decisions.push({ guardian: m.id, approved, reason });
      if (approved) approvers.push(m);
      await onEvent({ kind: 'decision', guardian: m.id, approved, reason });
    });
    await new Promise<void>((resolve) => {
      let settled = 0;
      for (const p of pending)
        void p.finally(() => {
          settled++;
          if ((approvers.length >= t && !waitForAll) || settled === pending.length) resolve();
        });
    });
    return { decisions, approvers, early, pending };
  }

  /**
   * Round 1: a commitment from each chosen guardian, checked to be its own and never seen before.
   * `early` holds the ones that came with the approvals for this attempt (the first); only the
   * others are asked. Answers null when a guardian was dropped.
   */
  private async roundOne(
    sessionId: string,
    attempt: number,
    chosen: Member[],
    early: Map<number, unknown> | null,
    drop: (m: Member, reason: string) => Promise<void>,
  ): Promise<NonceCommitments[] | null> {
    const commits = await Promise.all(
      chosen.map(async (m) => {
        try {
          const given = early?.get(m.id);
          const json =
            given ??
            (
              (await this.call(m, 'sign/commit', { sessionId, attempt })).payload.body as {
                commitments?: unknown;
              }
            ).commitments;
          const c = commitmentsFromJson(json);
          if (c.identifier !== frostIdentifier(m.id))
            throw new Error('commitment names another guardian');
          const hiding = bytesToHex(c.hiding);
          const binding = bytesToHex(c.binding);
          if (this.seenCommitments.has(hiding) || this.seenCommitments.has(binding)) {
            await drop(m, 'reused a nonce commitment');
            return null;
          }
          this.seenCommitments.add(hiding).add(binding);
          if (this.seenCommitments.size > MAX_SEEN_COMMITMENTS) {
            const oldest = this.seenCommitments.values().next().value!;
            this.seenCommitments.delete(oldest);
          }
          return c;
        } catch (e) {
          await drop(m, `no commitment: ${describe(e)}`);
          return null;
        }
      }),
    );
    return commits.some((c) => c === null) ? null : (commits as NonceCommitments[]);
  }

  /**
   * Round 2: a share from each chosen guardian, then the signature: R's x coordinate and the
   * shares' sum (aggregate.ts), checked once, by BIP-340 under the group key or by the caller's
   * `check`. Each guardian computes R to make its share and sends its x beside it; when the chosen
   * guardians agree on it, the signature takes it, else (or when the signature fails) this
   * process computes R itself. A wrong R, like a wrong share, only makes a signature the check
   * refuses. Shares are checked one by one against their guardians' verifying shares only when
   * the signature with this process's own R fails (RFC 9591, section 5.3: a coordinator may
   * verify each share only then, to name who cheated). Answers null when a guardian was dropped.
   */
  private async roundTwo(
    sessionId: string,
    attempt: number,
    chosen: Member[],
    list: NonceCommitments[],
    message: Uint8Array,
    drop: (m: Member, reason: string) => Promise<void>,
    check: (signature: Uint8Array) => boolean | Promise<boolean>,
  ): Promise<Uint8Array | null> {
    const commitments = list.map(commitmentsToJson);
    const shares = await Promise.all(
      chosen.map(async (m) => {
        try {
          const { payload } = await this.call(m, 'sign/share', { sessionId, attempt, commitments });
          const body = payload.body as { share?: unknown; rx?: unknown };
          return {
            id: frostIdentifier(m.id),
            share: parseHex(body.share, 32, 'signature share'),
            rx: typeof body.rx === 'string' ? body.rx : null,
          };
        } catch (e) {
          await drop(m, `dropped between rounds: ${describe(e)}`);
          return null;
        }
      }),
    );
    if (shares.some((s) => s === null)) return null;
    const byId = shares as { id: string; share: Uint8Array; rx: string | null }[];
    const sum = byId.map((s) => s.share);
    const first = byId[0]!.rx;
    // R's x as the chosen guardians all told it, when they agree: checked with the signature.
    const told =
      first !== null && /^[0-9a-f]{64}$/.test(first) && byId.every((s) => s.rx === first)
        ? first
        : null;
    if (told !== null) {
      const signature = signatureOf(parseHex(told, 32), sum);
      if (await check(signature)) return signature;
    }
    let rx: Uint8Array | null = null;
    try {
      rx = groupCommitmentX(this.set.groupKey!, list, message);
    } catch {
      rx = null;
    }
    if (rx !== null && bytesToHex(rx) !== told) {
      const signature = signatureOf(rx, sum);
      if (await check(signature)) return signature;
    }
    let named = false;
    for (const [i, m] of chosen.entries()) {
      if (frost.verifyShare(this.pub, list, message, byId[i]!.id, byId[i]!.share)) continue;
      await drop(m, 'bad signature share');
      named = true;
    }
    if (!named) throw new Error('the shares do not aggregate, yet each one verifies');
    return null;
  }

  /**
   * Asks every guardian to sign `message` (32 bytes). `onEvent` is awaited at each step (the
   * tracker's "2 of 3 guardians approved" reads these). Throws QuorumError when fewer than t
   * guardians approve or stay.
   */
  async sign(
    message: Uint8Array,
    context: unknown,
    onEvent: (e: SignEvent) => void | Promise<void> = () => {},
    options: SignOptions = {},
  ): Promise<SignResult> {
    const maxAttempts = options.maxAttempts ?? 4;
    const rank = (m: Member) => {
      const i = options.prefer?.indexOf(m.id) ?? -1;
      return i === -1 ? Number.MAX_SAFE_INTEGER : i;
    };
    if (message.length !== 32) throw new Error('message must be 32 bytes');
    const { t } = this.set;
    const sessionId = options.sessionId ?? bytesToHex(randomBytes(32));
    const excluded: SignResult['excluded'] = [];
    const firstAttempt = options.firstAttempt ?? 1;
    const { decisions, approvers, early, pending } = await this.propose(
      sessionId,
      message,
      context,
      onEvent,
      options.waitForAll === true,
      firstAttempt,
    );
    for (let attempt = firstAttempt; attempt < firstAttempt + maxAttempts; attempt++) {
      let candidates = approvers.filter((m) => !excluded.some((x) => x.guardian === m.id));
      if (candidates.length < t) {
        await Promise.allSettled(pending);
        candidates = approvers.filter((m) => !excluded.some((x) => x.guardian === m.id));
      }
      if (candidates.length < t) break;
      // Preferred guardians first, then in the order their approvals arrived (fastest first).
      const ranked = candidates
        .map((m, arrival) => ({ m, arrival }))
        .sort((a, b) => rank(a.m) - rank(b.m) || a.arrival - b.arrival);
      const chosen = ranked
        .slice(0, t)
        .map((r) => r.m)
        .sort((a, b) => a.id - b.id);
      const drop = async (m: Member, reason: string) => {
        excluded.push({ guardian: m.id, reason });
        await onEvent({ kind: 'excluded', attempt, guardian: m.id, reason });
      };
      // Round 1: commitments from exactly the chosen approvers.
      const list = await this.roundOne(
        sessionId,
        attempt,
        chosen,
        attempt === firstAttempt ? early : null,
        drop,
      );
      if (list === null) continue;
      await onEvent({ kind: 'committed', sessionId, attempt, signers: chosen.map((m) => m.id) });
      const check =
        options.check ??
        ((signature: Uint8Array) => schnorr.verify(signature, message, this.groupKey));
      const signature = await this.roundTwo(sessionId, attempt, chosen, list, message, drop, check);
      if (signature === null) continue;
      await onEvent({ kind: 'signed', attempt, signers: chosen.map((m) => m.id) });
      return {
        signature,
        signers: chosen.map((m) => m.id),
        attempts: attempt - firstAttempt + 1,
        excluded,
        decisions,
      };
    }
    await Promise.allSettled(pending);
    const refusals = decisions
      .filter((d) => !d.approved)
      .map((d) => `guardian ${d.guardian}: ${d.reason}`)
      .concat(excluded.map((x) => `guardian ${x.guardian}: ${x.reason}`));
    throw new QuorumError(
      `fewer than ${t} of ${this.set.n} guardians approved and signed (${refusals.join('; ')})`,
      sessionId,
      decisions,
      excluded,
    );
  }
}

export { runDkg, type RotationHooks } from './dkg-coordinator';

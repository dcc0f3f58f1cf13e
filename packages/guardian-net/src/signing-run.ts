// One signing by the coordinator: the calls ROAST's scheduler (roast.ts) asks for, and their
// results reported back to it. A guardian with a preprocessed commitment in the coordinator's pool
// (commitment-pool.ts) is ready at once and asked in a session to decide and sign in one message
// (`sign/once`); every other guardian is asked to decide (`sign/propose`, its approval carrying the
// commitment of its first slot) and, in a session, for its share (`sign/share`, under the slot its
// commitment was issued for). A stalled session's answered members are verified share by share and
// given fresh commitments (from the pool, else `sign/commit`), so a session of others starts while
// the first keeps running; whichever completes first signs.
import type { FrostPublic, NonceCommitments } from '@noble/curves/abstract/frost.js';
import { sessionSignature } from './session-signature';
import { bytesToHex, parseHex } from './canonical';
import { commitmentsToJson, frostIdentifier } from './frost';
import type { GuardianSet, Member } from './guardian-set';
import {
  RoastScheduler,
  type Exclusion,
  type ExclusionCause,
  type RoastAction,
  type RoastOptions,
} from './roast';
import { RemoteError, type CallResult } from './transport';
import { causeOf, describe, QuorumError, type SignEvent, type SignResult } from './sign-result';

export { causeOf, describe, QuorumError, type SignEvent, type SignResult } from './sign-result';
import { shareChecker } from './verify-share';
import type { MessageType } from './messages';
import type { CommitmentPool } from './commitment-pool';

/** What a signing needs of its coordinator: its calls and its checks. */
export interface RunContext {
  set: GuardianSet;
  pub: FrostPublic;
  call<T extends MessageType>(m: Member, type: T, body: unknown): Promise<CallResult<T>>;
  /** parses a commitment, checks it is `m`'s own and never seen; throws why not */
  commitment(m: Member, json: unknown): NonceCommitments;
  check(signature: Uint8Array): boolean | Promise<boolean>;
  onEvent(e: SignEvent): void | Promise<void>;
  /** every exclusion, also those that come after the result (a late refusal or time-out) */
  onExclusion?: (e: Exclusion) => void;
  /** preprocessed commitments (commitment-pool.ts): the guardians with one sign in one round trip */
  pool?: CommitmentPool;
}

interface Session {
  members: { m: Member; slot: number; c: NonceCommitments }[];
  list: NonceCommitments[];
  shares: Map<number, { share: Uint8Array; rx: string | null }>;
  checker?: (identifier: string, share: Uint8Array) => boolean;
}

export class SigningRun {
  private readonly sched: RoastScheduler<NonceCommitments>;
  private readonly sessions = new Map<number, Session>();
  private readonly decisions: SignResult['decisions'] = [];
  private timer?: NodeJS.Timeout;
  private settle!: { resolve: (r: SignResult) => void; reject: (e: Error) => void };
  private over = false;
  private readonly firstSlot: number;
  private readonly waitForAll: boolean;
  private proposals: Promise<void>[] = [];
  /** commitments taken from the pool, until a session's list carries them or they go back */
  private readonly pooled = new Map<NonceCommitments, number>();
  /** guardians with this session approved on record (their decision reported once) */
  private readonly decided = new Set<number>();
  /** guardians asked by the two-round path only (a preprocessed commitment of theirs failed) */
  private readonly noPool = new Set<number>();
  /** guardians sent a call about this signing (not one ready from the pool and never in a session) */
  private readonly asked = new Set<number>();

  constructor(
    private readonly ctx: RunContext,
    private readonly sessionId: string,
    private readonly message: Uint8Array,
    private readonly context: unknown,
    options: Omit<RoastOptions, 'ids' | 't'>,
  ) {
    this.firstSlot = options.firstSlot;
    this.waitForAll = options.waitForAll === true;
    this.sched = new RoastScheduler({
      ...options,
      ids: ctx.set.members.map((m) => m.id),
      t: ctx.set.t,
    });
  }

  private byId(id: number): Member {
    return this.ctx.set.members.find((m) => m.id === id)!;
  }

  run(): Promise<SignResult> {
    const done = new Promise<SignResult>((resolve, reject) => {
      this.settle = { resolve, reject };
    });
    const { pool } = this.ctx;
    const now = Date.now();
    this.proposals = this.ctx.set.members.map((m) => {
      // A preprocessed commitment makes a guardian ready at once: its decision and its share come
      // in the one answer to `sign/once` (signing-rounds.ts `once`). Without one, the two-round path.
      const c = this.waitForAll ? undefined : pool?.take(m.id);
      if (c === undefined) return this.propose(m);
      this.pooled.set(c, m.id);
      this.sched.approved(m.id, now, c);
      return Promise.resolve();
    });
    this.pump();
    return done;
  }

  private async propose(m: Member, slot = this.firstSlot, retried = false, commit = true) {
    let approved = false;
    let reason: string | null = null;
    let cause: ExclusionCause = 'refused';
    let early: NonceCommitments | undefined;
    this.ask(m);
    try {
      const { payload } = await this.ctx.call(m, 'sign/propose', {
        sessionId: this.sessionId,
        message: bytesToHex(this.message),
        context: this.context,
        ...(commit ? { commitAttempt: slot } : {}),
      });
      const b = payload.body;
      approved = b.approved;
      reason = approved ? null : String(b.reason ?? 'refused');
      if (approved && b.commitments !== undefined && !this.over)
        try {
          early = this.ctx.commitment(m, b.commitments);
        } catch (e) {
          this.decisions.push({ guardian: m.id, approved, reason });
          this.sched.failed(m.id, 'bad-commitment', (e as Error).message);
          return this.pump();
        }
    } catch (e) {
      reason = describe(e);
      cause = causeOf(e);
    }
    await this.decide(m, approved, reason);
    if (retried) {
      // Asked again after its preprocessed commitment failed, or for its decision alone at the end.
      if (this.over) return;
      if (!approved) this.sched.failed(m.id, cause, reason!);
      else if (early) this.sched.committed(m.id, slot, early, Date.now());
      else if (commit) return this.commit(m, slot);
      return this.pump();
    }
    if (approved) this.sched.approved(m.id, Date.now(), early);
    else this.sched.failed(m.id, cause, reason!);
    this.pump();
  }

  /** Reports that `m` is asked about this signing, once: a guardian not asked never is silent. */
  private ask(m: Member): void {
    if (this.asked.has(m.id)) return;
    this.asked.add(m.id);
    void Promise.resolve(this.ctx.onEvent({ kind: 'asked', guardian: m.id })).catch(
      () => undefined,
    );
  }

  /** Reports `m`'s decision, once. */
  private async decide(m: Member, approved: boolean, reason: string | null): Promise<void> {
    if (this.decided.has(m.id) || this.decisions.some((d) => d.guardian === m.id)) return;
    if (approved) this.decided.add(m.id);
    this.decisions.push({ guardian: m.id, approved, reason });
    await this.ctx.onEvent({ kind: 'decision', guardian: m.id, approved, reason });
  }

  /** Performs what the scheduler asks now, and wakes it for its next stall check. */
  private pump(): void {
    for (const a of this.sched.take(Date.now())) this.perform(a);
    if (!this.over && this.sched.blocked) this.proposals.push(...this.askUnasked());
    clearTimeout(this.timer);
    const at = this.over ? null : this.sched.wakeAt();
    if (at !== null) this.timer = setTimeout(() => this.pump(), Math.max(0, at - Date.now()) + 1);
  }

  private perform(a: RoastAction<NonceCommitments>): void {
    if (a.kind === 'exclude') {
      this.ctx.onExclusion?.(a.exclusion);
      if (!this.over)
        void Promise.resolve(
          this.ctx.onEvent({
            kind: 'excluded',
            attempt: this.sched.sessionsStarted,
            guardian: a.exclusion.guardian,
            reason: a.exclusion.reason,
            cause: a.exclusion.cause,
          }),
        ).catch(() => undefined);
      return;
    }
    if (this.over) return;
    if (a.kind === 'commit') void this.commit(this.byId(a.guardian), a.slot);
    else if (a.kind === 'start') void this.start(a.session, a.members);
    else if (a.kind === 'verify') this.verify(a.session, a.guardians);
    else if (a.kind === 'aggregate') void this.aggregate(a.session);
    else this.fail();
  }

  private async commit(m: Member, slot: number): Promise<void> {
    const c = this.noPool.has(m.id) ? undefined : this.ctx.pool?.take(m.id);
    if (c !== undefined) {
      this.pooled.set(c, m.id);
      this.sched.committed(m.id, slot, c, Date.now());
      return this.pump();
    }
    // Not decided on record yet (its preprocessed commitment failed before its policy ran).
    if (!this.decided.has(m.id)) return this.propose(m, slot, true);
    try {
      const { payload } = await this.ctx.call(m, 'sign/commit', {
        sessionId: this.sessionId,
        attempt: slot,
      });
      const json = payload.body.commitments;
      let c: NonceCommitments;
      try {
        c = this.ctx.commitment(m, json);
      } catch (e) {
        this.sched.failed(m.id, 'bad-commitment', (e as Error).message);
        return this.pump();
      }
      this.sched.committed(m.id, slot, c, Date.now());
    } catch (e) {
      this.sched.failed(m.id, causeOf(e), `no commitment: ${describe(e)}`);
    }
    this.pump();
  }

  private async start(
    no: number,
    members: { guardian: number; slot: number; commitment: NonceCommitments }[],
  ): Promise<void> {
    const session: Session = {
      members: members.map((x) => ({ m: this.byId(x.guardian), slot: x.slot, c: x.commitment })),
      list: members.map((x) => x.commitment),
      shares: new Map(),
    };
    this.sessions.set(no, session);
    const signers = members.map((x) => x.guardian);
    await this.ctx.onEvent({ kind: 'committed', sessionId: this.sessionId, attempt: no, signers });
    if (this.over) return;
    const commitments = session.list.map(commitmentsToJson);
    for (const { m, slot, c } of session.members) {
      const preprocessed = this.pooled.delete(c);
      if (preprocessed) void this.askOnce(no, session, m, commitments);
      else void this.askShare(no, session, m, slot, commitments);
    }
  }

  /** One round trip: `m` decides and, approving, signs over the list (signing-rounds.ts `once`). */
  private async askOnce(no: number, session: Session, m: Member, commitments: unknown[]) {
    this.ask(m);
    try {
      const { payload } = await this.ctx.call(m, 'sign/once', {
        sessionId: this.sessionId,
        message: bytesToHex(this.message),
        context: this.context,
        commitments,
      });
      const { approved, reason, share, rx } = payload.body;
      if (!approved || share === undefined) {
        const why = approved ? 'approved without a signature share' : String(reason ?? 'refused');
        await this.decide(m, false, why);
        this.sched.failed(m.id, 'refused', why);
        return this.pump();
      }
      await this.decide(m, true, null);
      session.shares.set(m.id, { share: parseHex(share, 32, 'signature share'), rx: rx ?? null });
      this.sched.shareIn(no, m.id, Date.now());
    } catch (e) {
      if (this.over) return;
      if (e instanceof RemoteError && e.code === 'nonce-unavailable') {
        // It no longer holds that commitment (it restarted): none of its pool is any good.
        this.ctx.pool?.drop(m.id);
        this.noPool.add(m.id);
        this.sched.retry(m.id, `no signature share: ${describe(e)}`);
      } else if (!this.decided.has(m.id)) {
        // Failed before it decided: named as a failed decision is on the two-round path.
        await this.decide(m, false, describe(e));
        this.sched.failed(m.id, causeOf(e), describe(e));
      } else this.sched.failed(m.id, causeOf(e), `no signature share: ${describe(e)}`);
    }
    this.pump();
  }

  private async askShare(
    no: number,
    session: Session,
    m: Member,
    slot: number,
    commitments: unknown[],
  ): Promise<void> {
    try {
      const { payload } = await this.ctx.call(m, 'sign/share', {
        sessionId: this.sessionId,
        attempt: slot,
        commitments,
      });
      const { share, rx } = payload.body;
      session.shares.set(m.id, { share: parseHex(share, 32, 'signature share'), rx });
      this.sched.shareIn(no, m.id, Date.now());
    } catch (e) {
      if (this.over) return;
      this.sched.failed(m.id, causeOf(e), `no signature share: ${describe(e)}`);
    }
    this.pump();
  }

  /**
   * FROST's check of one share against its guardian's verifying share (RFC 9591, 5.4), with the
   * session's group commitment computed once (verify-share.ts).
   */
  private shareOk(session: Session, id: number): boolean {
    const s = session.shares.get(id);
    if (!s) return false;
    try {
      session.checker ??= shareChecker(this.ctx.pub, session.list, this.message);
      return session.checker(frostIdentifier(id), s.share);
    } catch {
      return false;
    }
  }

  private verify(no: number, ids: number[]): void {
    const session = this.sessions.get(no)!;
    this.sched.verified(no, new Map(ids.map((id) => [id, this.shareOk(session, id)])));
    // The caller pumps again (perform runs inside pump); nothing is asked twice.
    queueMicrotask(() => this.pump());
  }

  /** The session's signature (session-signature.ts); when none checks, each share is verified. */
  private async aggregate(no: number): Promise<void> {
    const session = this.sessions.get(no)!;
    const shares = session.members.map(({ m }) => session.shares.get(m.id)!);
    const signature = await sessionSignature(this.ctx, shares, session.list, this.message);
    if (this.over) return;
    if (signature !== null) return this.succeed(no, session, signature);
    const results = new Map(session.members.map(({ m }) => [m.id, this.shareOk(session, m.id)]));
    if ([...results.values()].every(Boolean)) {
      this.finish();
      this.settle.reject(new Error('the shares do not aggregate, yet each one verifies'));
      return;
    }
    this.sched.verified(no, results);
    this.pump();
  }

  private succeed(no: number, session: Session, signature: Uint8Array): void {
    this.sched.complete(no);
    const signers = session.members.map(({ m }) => m.id);
    // The last exclusions (a member silent in a stalled session) before the result.
    for (const a of this.sched.take(Date.now())) this.perform(a);
    this.finish();
    void Promise.resolve(this.ctx.onEvent({ kind: 'signed', attempt: no, signers }))
      .catch(() => undefined)
      .then(() =>
        this.settle.resolve({
          signature,
          signers,
          attempts: this.sched.sessionsStarted,
          excluded: [...this.sched.exclusions],
          decisions: [...this.decisions],
        }),
      );
  }

  /** Blocked or failed (roast.ts `blocked`): the pooled guardians not asked yet decide, no share. */
  private askUnasked(): Promise<void>[] {
    const pooled = new Set(this.pooled.values());
    return this.ctx.set.members
      .filter((m) => pooled.has(m.id) && !this.asked.has(m.id))
      .map((m) => this.propose(m, this.firstSlot, true, false));
  }

  /** Nothing can be signed: once every guardian decided (each call has its time-out), says why. */
  private fail(): void {
    const late = this.askUnasked();
    this.finish();
    const { t, n } = this.ctx.set;
    void Promise.allSettled([...this.proposals, ...late]).then(() => {
      const why = this.sched.exclusions.map((x) => `guardian ${x.guardian}: ${x.reason}`);
      this.settle.reject(
        new QuorumError(
          `fewer than ${t} of ${n} guardians approved and signed (${why.join('; ')})`,
          this.sessionId,
          [...this.decisions],
          [...this.sched.exclusions],
        ),
      );
    });
  }

  private finish(): void {
    this.over = true;
    clearTimeout(this.timer);
    // Taken from the pool and never in a session's list: no guardian saw them used; usable again.
    for (const [c, id] of this.pooled) this.ctx.pool?.giveBack(id, c);
    this.pooled.clear();
  }
}

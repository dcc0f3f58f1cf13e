// One signing by the coordinator: the calls ROAST's scheduler (roast.ts) asks for, and their
// results reported back to it. Every guardian is asked to decide at once (`sign/propose`, its
// approval carrying the commitment of its first slot); sessions ask their members for shares
// (`sign/share`, each member under the slot its commitment was issued for); a stalled session's
// answered members are verified share by share and asked for fresh commitments (`sign/commit`), so
// a session of others starts while the first keeps running; whichever completes first signs.
import type { FrostPublic, NonceCommitments } from '@noble/curves/abstract/frost.js';
import { groupCommitmentX, signatureOf } from './aggregate';
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
import { shareChecker } from './verify-share';
import type { MessageType } from './messages';

export type SignEvent =
  | { kind: 'decision'; guardian: number; approved: boolean; reason: string | null }
  | { kind: 'committed'; sessionId: string; attempt: number; signers: number[] }
  | { kind: 'excluded'; attempt: number; guardian: number; reason: string; cause: ExclusionCause }
  | { kind: 'signed'; attempt: number; signers: number[] };

export interface SignResult {
  /** BIP-340 signature (64 bytes) under the group key */
  signature: Uint8Array;
  signers: number[];
  /** the ROAST sessions started (at most n - t + 1) */
  attempts: number;
  /** guardians named and left out, with why */
  excluded: Exclusion[];
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

export function describe(e: unknown): string {
  const err = e as Error & { code?: string };
  if (err.name === 'TimeoutError') return 'timed out';
  const cause = (err as { cause?: { code?: string } }).cause;
  if (cause?.code) return `unreachable (${cause.code})`;
  return err.code ? `${err.code}: ${err.message}` : err.message;
}

/** What a failed call says of its guardian. */
export function causeOf(e: unknown): ExclusionCause {
  if ((e as Error).name === 'TimeoutError') return 'stalled';
  if (e instanceof RemoteError) return 'refused';
  return 'unreachable';
}

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
  private proposals: Promise<void>[] = [];

  constructor(
    private readonly ctx: RunContext,
    private readonly sessionId: string,
    private readonly message: Uint8Array,
    private readonly context: unknown,
    options: Omit<RoastOptions, 'ids' | 't'>,
  ) {
    this.firstSlot = options.firstSlot;
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
    this.proposals = this.ctx.set.members.map((m) => this.propose(m));
    return done;
  }

  private async propose(m: Member): Promise<void> {
    let approved = false;
    let reason: string | null = null;
    let cause: ExclusionCause = 'refused';
    let early: NonceCommitments | undefined;
    try {
      const { payload } = await this.ctx.call(m, 'sign/propose', {
        sessionId: this.sessionId,
        message: bytesToHex(this.message),
        context: this.context,
        commitAttempt: this.firstSlot,
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
    this.decisions.push({ guardian: m.id, approved, reason });
    await this.ctx.onEvent({ kind: 'decision', guardian: m.id, approved, reason });
    if (approved) this.sched.approved(m.id, Date.now(), early);
    else this.sched.failed(m.id, cause, reason!);
    this.pump();
  }

  /** Performs what the scheduler asks now, and wakes it for its next stall check. */
  private pump(): void {
    for (const a of this.sched.take(Date.now())) this.perform(a);
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
    const commitments = session.list.map(commitmentsToJson);
    for (const { m, slot } of session.members)
      void this.askShare(no, session, m, slot, commitments);
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

  /**
   * The signature: R's x coordinate and the shares' sum (aggregate.ts), checked once by `check`.
   * Each guardian sends R's x beside its share; when all agree the signature takes it, else (or
   * when it fails) this process computes R itself. Only when that fails too is each share
   * verified, to name who cheated (RFC 9591, section 5.3).
   */
  private async aggregate(no: number): Promise<void> {
    const session = this.sessions.get(no)!;
    const ordered = session.members.map(({ m }) => session.shares.get(m.id)!);
    const sum = ordered.map((s) => s.share);
    const first = ordered[0]!.rx;
    const told =
      first !== null && /^[0-9a-f]{64}$/.test(first) && ordered.every((s) => s.rx === first)
        ? first
        : null;
    let signature: Uint8Array | null = null;
    if (told !== null) {
      const candidate = signatureOf(parseHex(told, 32), sum);
      if (await this.ctx.check(candidate)) signature = candidate;
    }
    if (signature === null) {
      let rx: string | null = null;
      try {
        rx = bytesToHex(groupCommitmentX(this.ctx.set.groupKey!, session.list, this.message));
      } catch {
        rx = null;
      }
      if (rx !== null && rx !== told) {
        const candidate = signatureOf(parseHex(rx, 32), sum);
        if (await this.ctx.check(candidate)) signature = candidate;
      }
    }
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

  /** Nothing can be signed: once every guardian decided (each call has its time-out), says why. */
  private fail(): void {
    this.finish();
    const { t, n } = this.ctx.set;
    void Promise.allSettled(this.proposals).then(() => {
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
  }
}

// ROAST (Ruffing, Ronge, Jin, Schneider-Bensch, Schröder, CCS 2022) as a scheduler free of I/O:
// which guardian to ask for a commitment, when to start a signing session and with whom, which
// shares to verify. The coordinator (coordinator.ts) performs the calls and reports their results.
//
// A guardian is "ready" when the coordinator holds a fresh commitment of its, never used, and it
// is in no open session. A session starts with t ready guardians. A guardian leaves a session only
// by answering it with a share that verifies (then, once a fresh commitment of its arrives, it is
// ready again) or by being excluded (a bad share, a refusal, a call that failed or timed out). A
// session that does not complete therefore holds, for good, one guardian that is not ready: one
// that has not answered, or was excluded in it; and these are distinct across sessions. So while
// n-t+1 sessions are open and none completed, at most t-1 guardians are ready, and no further
// session can start: never more than n-t+1 sessions, whatever n-t guardians do, and with t honest
// guardians that answer one session of honest members completes.
//
// Unlike the paper's coordinator, which starts a session whenever t guardians are ready, this one
// starts another only when no open session is still healthy: one whose pending members are past
// their patience (stalled), or one with a bad share. An honest signing thus costs one session,
// and a share is verified one by one only where it matters (a session that stalled or whose
// signature failed; RFC 9591 section 5.3), which keeps the bound above: it only starts fewer.

export type ExclusionCause = 'refused' | 'unreachable' | 'stalled' | 'bad-share' | 'bad-commitment';

export interface Exclusion {
  guardian: number;
  cause: ExclusionCause;
  /** a sentence of why, for the logs and the request's refusal message */
  reason: string;
}

export type RoastAction<C> =
  /** ask `guardian` for a commitment under `slot` (the attempt number it files its nonce under) */
  | { kind: 'commit'; guardian: number; slot: number }
  /** ask each member for its share, over the members' commitments (sorted by guardian) */
  | { kind: 'start'; session: number; members: { guardian: number; slot: number; commitment: C }[] }
  /** verify these guardians' shares of `session` one by one, and report with `verified` */
  | { kind: 'verify'; session: number; guardians: number[] }
  /** every share of `session` is in: make the signature; report `verified` when it fails */
  | { kind: 'aggregate'; session: number }
  | { kind: 'exclude'; exclusion: Exclusion }
  /** no signature can come any more */
  | { kind: 'fail'; reason: string };

type Phase =
  'deciding' | 'committing' | 'ready' | 'busy' | 'answered' | 'verifying' | 'idle' | 'out';

interface MemberState<C> {
  id: number;
  phase: Phase;
  nextSlot: number;
  slotsLeft: number;
  commitment?: { slot: number; value: C };
  session?: number;
  /** when it became ready, for "fastest first" */
  readyAt: number;
}

interface SessionState {
  no: number;
  members: number[];
  started: number;
  answered: Map<number, number>;
  stalled: boolean;
  failed: boolean;
  aggregating: boolean;
}

export interface RoastOptions {
  ids: readonly number[];
  t: number;
  /** the first slot (attempt) each guardian's commitments are numbered from */
  firstSlot: number;
  /** a pending member is stalled this long after a first member of its session answered, at least */
  patienceMs?: number;
  /** a session none of whose members answered is stalled after this */
  stallMs?: number;
  /** start the first session only once every guardian decided */
  waitForAll?: boolean;
  /** guardians to choose first, in this order, among the ready ones */
  prefer?: readonly number[];
}

export const DEFAULT_PATIENCE_MS = 75;
export const DEFAULT_STALL_MS = 1_500;

export class RoastScheduler<C> {
  private readonly members = new Map<number, MemberState<C>>();
  private readonly sessions: SessionState[] = [];
  private readonly queue: RoastAction<C>[] = [];
  readonly exclusions: Exclusion[] = [];
  /** the most sessions this signing may take: n - t + 1, and one more per `retry` */
  maxSessions: number;
  private readonly retried = new Set<number>();
  private finished = false;

  constructor(private readonly o: RoastOptions) {
    const n = o.ids.length;
    this.maxSessions = n - o.t + 1;
    for (const id of o.ids)
      this.members.set(id, {
        id,
        phase: 'deciding',
        nextSlot: o.firstSlot,
        // One commitment to begin with, and a fresh one after each session it answers.
        slotsLeft: this.maxSessions + 1,
        readyAt: 0,
      });
  }

  get sessionsStarted(): number {
    return this.sessions.length;
  }

  get done(): boolean {
    return this.finished;
  }

  private member(id: number): MemberState<C> {
    const m = this.members.get(id);
    if (!m) throw new Error(`guardian ${id} is not in this signing`);
    return m;
  }

  private exclude(m: MemberState<C>, cause: ExclusionCause, reason: string): void {
    if (m.phase === 'out') return;
    m.phase = 'out';
    delete m.commitment;
    const exclusion = { guardian: m.id, cause, reason };
    this.exclusions.push(exclusion);
    this.queue.push({ kind: 'exclude', exclusion });
    const s = m.session === undefined ? undefined : this.sessions[m.session - 1];
    // A member gone from its session: that session can never complete.
    if (s && !s.answered.has(m.id)) s.failed = true;
  }

  private useSlot(m: MemberState<C>): number {
    m.slotsLeft--;
    return m.nextSlot++;
  }

  /** Approved; with its commitment for the first slot when the approval carried one. */
  approved(id: number, now: number, commitment?: C): void {
    const m = this.member(id);
    if (m.phase !== 'deciding' || this.finished) return;
    if (commitment !== undefined) {
      this.ready(m, this.useSlot(m), commitment, now);
      return;
    }
    m.phase = 'committing';
    this.queue.push({ kind: 'commit', guardian: id, slot: this.useSlot(m) });
  }

  private ready(m: MemberState<C>, slot: number, value: C, now: number): void {
    m.phase = 'ready';
    m.commitment = { slot, value };
    m.readyAt = now;
    delete m.session;
  }

  /** A commitment asked with a `commit` action arrived (checked by the caller). */
  committed(id: number, slot: number, value: C, now: number): void {
    const m = this.member(id);
    if (m.phase !== 'committing' || m.nextSlot - 1 !== slot) return;
    this.ready(m, slot, value, now);
  }

  /** A call to `id` failed, or it refused, or sent something unusable: it is out of this signing. */
  failed(id: number, cause: ExclusionCause, reason: string): void {
    const m = this.member(id);
    if (this.finished && m.phase !== 'deciding') return;
    this.exclude(m, cause, reason);
  }

  /**
   * `id`, busy in a session, could not sign with the commitment it was given there (a preprocessed
   * commitment it no longer holds: it restarted). That session cannot complete; `id` is asked for
   * a fresh commitment instead, and the signing may take one session more for it. Once per
   * guardian per signing: a second time excludes it.
   */
  retry(id: number, reason: string): void {
    const m = this.member(id);
    if (this.finished || m.phase !== 'busy') return;
    const s = this.sessions[m.session! - 1];
    if (this.retried.has(id) || m.slotsLeft <= 0) {
      this.exclude(m, 'bad-commitment', reason);
      return;
    }
    this.retried.add(id);
    if (s) s.failed = true;
    this.maxSessions++;
    delete m.session;
    m.phase = 'committing';
    this.queue.push({ kind: 'commit', guardian: id, slot: this.useSlot(m) });
  }

  /** `id`'s share for `session` arrived (not verified yet). */
  shareIn(session: number, id: number, now: number): void {
    const s = this.sessions[session - 1];
    const m = this.member(id);
    if (!s || m.session !== session || m.phase !== 'busy') return;
    s.answered.set(id, now);
    m.phase = 'answered';
  }

  /**
   * The result of a `verify` action, or of an `aggregate` that failed (then every share of the
   * session was verified): a bad share excludes its guardian; a good one frees it for another
   * session once it has a fresh commitment.
   */
  verified(session: number, results: ReadonlyMap<number, boolean>): void {
    const s = this.sessions[session - 1]!;
    for (const [id, ok] of results) {
      const m = this.member(id);
      if (!ok) {
        this.exclude(m, 'bad-share', 'bad signature share');
        s.failed = true;
      } else if (m.session === session && (m.phase === 'verifying' || m.phase === 'answered'))
        m.phase = 'idle';
    }
    s.aggregating = false;
  }

  /** `session`'s signature was made: the signing is over; `take` answers the last exclusions. */
  complete(session: number): void {
    this.finished = true;
    // A member still silent in a stalled session cost a session: it is named as stalled.
    for (const s of this.sessions) {
      if (s.no === session || !s.stalled) continue;
      for (const id of s.members) {
        const m = this.member(id);
        if (m.phase !== 'busy' || m.session !== s.no) continue;
        this.exclude(m, 'stalled', `no signature share in time (session ${s.no})`);
      }
    }
  }

  /**
   * A guardian is out and fewer than t others are free of an unanswered session: no session can
   * start until a silent member answers (the coordinator then asks the guardians it has not asked).
   */
  get blocked(): boolean {
    const all = [...this.members.values()];
    const free = all.filter((m) => m.phase !== 'out' && m.phase !== 'busy');
    return !this.finished && free.length < this.o.t && all.some((m) => m.phase === 'out');
  }

  /** When `take` should run again though nothing was reported (a stall to notice), or null. */
  wakeAt(): number | null {
    let at: number | null = null;
    for (const s of this.sessions) {
      if (s.stalled || s.failed) continue;
      const d = this.stallDeadline(s);
      at = at === null ? d : Math.min(at, d);
    }
    return at;
  }

  private stallDeadline(s: SessionState): number {
    const first = Math.min(...s.answered.values());
    if (!Number.isFinite(first)) return s.started + (this.o.stallMs ?? DEFAULT_STALL_MS);
    return first + Math.max(this.o.patienceMs ?? DEFAULT_PATIENCE_MS, first - s.started);
  }

  /** Everything to do now. */
  take(now: number): RoastAction<C>[] {
    if (this.finished) return this.queue.splice(0);
    for (const s of this.sessions) this.review(s, now);
    const healthy = this.sessions.some((s) => !s.stalled && !s.failed);
    if (!healthy) this.refresh();
    if (!healthy) this.maybeStart(now);
    this.maybeFail();
    return this.queue.splice(0);
  }

  /** Notices a stall, asks for the shares to verify that a stalled session holds, or aggregates. */
  private review(s: SessionState, now: number): void {
    const pending = s.members.filter((id) => this.member(id).phase === 'busy');
    if (!s.stalled && !s.failed && pending.length > 0 && now >= this.stallDeadline(s))
      s.stalled = true;
    // Every share in (some of its members may have moved on to later sessions since): it signs.
    if (s.answered.size === s.members.length && !s.aggregating && !s.failed) {
      s.aggregating = true;
      this.queue.push({ kind: 'aggregate', session: s.no });
      return;
    }
    if (!s.stalled && !s.failed) return;
    const unverified = s.members.filter((id) => {
      const m = this.member(id);
      return m.session === s.no && m.phase === 'answered';
    });
    if (unverified.length === 0) return;
    for (const id of unverified) this.member(id).phase = 'verifying';
    this.queue.push({ kind: 'verify', session: s.no, guardians: unverified });
  }

  /** Asks every guardian that answered well, and has slots left, for a fresh commitment. */
  private refresh(): void {
    for (const m of this.members.values()) {
      if (m.phase !== 'idle') continue;
      if (m.slotsLeft <= 0) continue;
      m.phase = 'committing';
      this.queue.push({ kind: 'commit', guardian: m.id, slot: this.useSlot(m) });
    }
  }

  private maybeStart(now: number): void {
    if (this.o.waitForAll && [...this.members.values()].some((m) => m.phase === 'deciding')) return;
    const ready = [...this.members.values()].filter((m) => m.phase === 'ready');
    if (ready.length < this.o.t || this.sessions.length >= this.maxSessions) return;
    const rank = (m: MemberState<C>) => {
      const i = this.o.prefer?.indexOf(m.id) ?? -1;
      return i === -1 ? Number.MAX_SAFE_INTEGER : i;
    };
    const chosen = ready
      .sort((a, b) => rank(a) - rank(b) || a.readyAt - b.readyAt)
      .slice(0, this.o.t)
      .sort((a, b) => a.id - b.id);
    const no = this.sessions.length + 1;
    this.sessions.push({
      no,
      members: chosen.map((m) => m.id),
      started: now,
      answered: new Map(),
      stalled: false,
      failed: false,
      aggregating: false,
    });
    const members = chosen.map((m) => {
      const c = m.commitment!;
      // A commitment goes into one session only: the next needs a fresh one.
      delete m.commitment;
      m.phase = 'busy';
      m.session = no;
      return { guardian: m.id, slot: c.slot, commitment: c.value };
    });
    this.queue.push({ kind: 'start', session: no, members });
  }

  /** Fails once no session can complete and no guardian can be ready for a new one. */
  private maybeFail(): void {
    const all = [...this.members.values()];
    const alive = all.filter((m) => m.phase !== 'out');
    const reason =
      alive.length < this.o.t
        ? `fewer than ${this.o.t} guardians are left`
        : this.stuck(all)
          ? `no session can complete and fewer than ${this.o.t} guardians can join another`
          : null;
    if (reason === null) return;
    this.finished = true;
    this.queue.push({ kind: 'fail', reason });
  }

  /** Nothing is in flight, no session can complete, and no new one can start. */
  private stuck(all: MemberState<C>[]): boolean {
    const waiting = all.some((m) =>
      ['deciding', 'committing', 'busy', 'answered', 'verifying'].includes(m.phase),
    );
    if (waiting) return false;
    const canJoin = all.filter(
      (m) => m.phase === 'ready' || (m.phase === 'idle' && m.slotsLeft > 0),
    ).length;
    return canJoin < this.o.t || this.sessions.length >= this.maxSessions;
  }
}

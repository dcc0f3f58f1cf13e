// What tracker step 4 shows while the guardian network decides: each guardian's state across every
// signing session of one request (one per guardian-signed input), from the coordinator's events.
// A guardian counts as approved once it approved every session it was asked in; one refusal is a
// refusal. Signing in one round trip, the coordinator asks only the t guardians of a session (the
// others' preprocessed commitments wait in its pool), and on the two-round path the first t
// approvals suffice: a guardian never asked, or not needed, stays pending (the tracker says "not
// needed" once the request is signed) and is never called unreachable.
import type { SignEvent } from '@unit/guardian-net';
import type { Approvals, GuardianDecision } from '@unit/protocol/wire';

type State = GuardianDecision['state'];

interface Member {
  id: number;
  name: string;
}

/** The wire's limit on a reason (guardianDecisionSchema). */
const MAX_REASON = 300;

const clip = (reason: string) =>
  reason.length > MAX_REASON ? `${reason.slice(0, MAX_REASON - 1)}…` : reason;

/** A guardian that never answered is unreachable, not a guardian that said no. */
function refusalState(reason: string): State {
  return /^(unreachable|timed out)/.test(reason) ? 'unreachable' : 'refused';
}

const bump = (counts: Map<number, number>, id: number) => counts.set(id, (counts.get(id) ?? 0) + 1);

export class ApprovalBoard {
  /** per guardian: how many sessions asked it, how many it approved, its first refusal or exclusion */
  private readonly askedSessions = new Map<number, number>();
  private readonly approvedSessions = new Map<number, number>();
  private readonly verdict = new Map<number, { state: State; reason: string }>();

  constructor(
    private readonly members: readonly Member[],
    private readonly t: number,
  ) {}

  /** Takes one coordinator event; true when it changed what step 4 shows. */
  record(event: SignEvent): boolean {
    if (event.kind === 'asked') {
      const before = this.stateOf(event.guardian).state;
      bump(this.askedSessions, event.guardian);
      return this.stateOf(event.guardian).state !== before;
    }
    if (event.kind === 'decision') {
      if (event.approved) {
        bump(this.approvedSessions, event.guardian);
        return true;
      }
      return this.judge(event.guardian, refusalState(event.reason ?? ''), event.reason ?? '');
    }
    if (event.kind === 'excluded') return this.judge(event.guardian, 'excluded', event.reason);
    return false;
  }

  /**
   * The network's answer did not come in time: a guardian asked in a session it has not answered
   * is unreachable; one never asked (or not needed) stays pending, since it was not silent.
   */
  giveUp(reason: string): void {
    for (const m of this.members)
      if (this.stateOf(m.id).state === 'pending' && this.unanswered(m.id) > 0)
        this.judge(m.id, 'unreachable', reason);
  }

  /** Sessions that asked `id` and have no decision of its. */
  private unanswered(id: number): number {
    return (this.askedSessions.get(id) ?? 0) - (this.approvedSessions.get(id) ?? 0);
  }

  private judge(guardian: number, state: State, reason: string): boolean {
    // The first refusal stands; an exclusion after it adds nothing a user needs.
    if (this.verdict.has(guardian)) return false;
    this.verdict.set(guardian, { state, reason: clip(reason) });
    return true;
  }

  private stateOf(id: number): { state: State; reason?: string } {
    const verdict = this.verdict.get(id);
    if (verdict) return verdict;
    return (this.approvedSessions.get(id) ?? 0) > 0 && this.unanswered(id) <= 0
      ? { state: 'approved' }
      : { state: 'pending' };
  }

  snapshot(): Approvals {
    const guardians = this.members.map((m) => ({ id: m.id, name: m.name, ...this.stateOf(m.id) }));
    return {
      approved: guardians.filter((g) => g.state === 'approved').length,
      needed: this.t,
      total: this.members.length,
      guardians,
    };
  }

  /** "2 of 3 guardians refused this request. guardian-2: ...; guardian-3: unreachable" */
  refusalMessage(): string {
    const { guardians, total } = this.snapshot();
    const refused = guardians.filter((g) => g.state !== 'approved' && g.state !== 'pending');
    const named = refused.map((g) => `${g.name}: ${g.reason ?? g.state}`).join('; ');
    return `${refused.length} of ${total} guardians refused this request. ${named}`;
  }
}

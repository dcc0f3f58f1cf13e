// What tracker step 4 shows while the guardian network decides: each guardian's state across every
// signing session of one request (one per guardian-signed input), from the coordinator's events.
// A guardian counts as approved only once it approved every session; one refusal is a refusal.
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

export class ApprovalBoard {
  /** per guardian: how many sessions it approved, and the first refusal or exclusion */
  private readonly approvedSessions = new Map<number, number>();
  private readonly verdict = new Map<number, { state: State; reason: string }>();

  constructor(
    private readonly members: readonly Member[],
    private readonly t: number,
    private readonly sessions: number,
  ) {}

  /** Takes one coordinator event; true when it changed what step 4 shows. */
  record(event: SignEvent): boolean {
    if (event.kind === 'decision') {
      if (event.approved) {
        this.approvedSessions.set(
          event.guardian,
          (this.approvedSessions.get(event.guardian) ?? 0) + 1,
        );
        return true;
      }
      return this.judge(event.guardian, refusalState(event.reason ?? ''), event.reason ?? '');
    }
    if (event.kind === 'excluded') return this.judge(event.guardian, 'excluded', event.reason);
    return false;
  }

  /** A guardian that approved but never answered one session is unreachable at the end. */
  giveUp(reason: string): void {
    for (const m of this.members)
      if (this.stateOf(m.id).state === 'pending') this.judge(m.id, 'unreachable', reason);
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
    return (this.approvedSessions.get(id) ?? 0) >= this.sessions
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

import type { Approvals, GuardianDecision } from '@unit/protocol/wire';
import {
  APPROVALS_COPY,
  approvalsCount,
  approvalsDone,
  approvalsNeed,
  decisionWords,
} from '../approvals';

/**
 * A guardian's reason, unless it only repeats its state: 'unreachable' over 'unreachable
 * (ECONNREFUSED)' says all a user can use; the socket's error code is for the server's log.
 */
const reasonOf = ({ state, reason }: GuardianDecision) =>
  reason && !reason.trim().toLowerCase().startsWith(decisionWords(state)) ? reason : null;

/**
 * "2 of 3 guardians approved" and what it means: the one polite live region of the approvals (a
 * screen reader hears the count change, not every row). It is there, empty, before the first
 * approvals arrive, so the first count is announced too; without approvals it stays empty.
 */
export function ApprovalsCount({
  approvals,
  failed,
}: {
  approvals: Approvals | null;
  failed: boolean;
}) {
  const done = approvals !== null && approvalsDone(approvals);
  const tone = done ? 'done' : failed ? 'error' : 'waiting';
  return (
    <p
      className={`approvals__count approvals__count--${tone}`}
      aria-live="polite"
      aria-atomic="true"
    >
      {approvals && (
        <>
          <span className="approvals__mark" aria-hidden="true" />
          <span className="approvals__total">{approvalsCount(approvals)}</span>
          <span className="approvals__need">, {approvalsNeed(approvals)}</span>
        </>
      )}
    </p>
  );
}

/** Each guardian's decision in words, its reason under it; nothing without guardians. */
export function ApprovalsList({ approvals, id }: { approvals: Approvals | null; id?: string }) {
  if (!approvals || approvals.guardians.length === 0) return null;
  return (
    <ul id={id} className="approvals__list" aria-label={APPROVALS_COPY.list}>
      {approvals.guardians.map((guardian) => (
        <li
          key={guardian.id}
          className={`approvals__guardian approvals__guardian--${guardian.state}`}
        >
          <span className="approvals__icon" aria-hidden="true" />
          <span className="approvals__name">{guardian.name}</span>
          <span className="approvals__state">
            <span className="sr-only">: </span>
            {decisionWords(guardian.state)}
          </span>
          {reasonOf(guardian) && (
            <span className="approvals__reason">
              <span className="sr-only">, </span>
              {reasonOf(guardian)}
            </span>
          )}
        </li>
      ))}
    </ul>
  );
}

/**
 * Issue 20 item 6: "2 of 3 guardians approved" and each guardian's decision, under the tracker's
 * network approvals line. Each state is said in words; the marks beside them are the style's
 * (flows.css), for the eye only, so the tracker's own ✓ stay the only ones in its text. The count
 * line is the one polite live region. Without approvals (the server signing alone) it stays empty.
 * The pending banner shows the same two parts (vault/BannerApprovals.tsx).
 */
export function GuardianApprovals({
  approvals,
  failed,
}: {
  approvals: Approvals | null;
  failed: boolean;
}) {
  return (
    <div className="approvals">
      <ApprovalsCount approvals={approvals} failed={failed} />
      <ApprovalsList approvals={approvals} />
    </div>
  );
}

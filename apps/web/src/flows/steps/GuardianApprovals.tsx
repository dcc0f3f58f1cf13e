import type { Approvals, GuardianDecision } from '@unit/protocol/wire';
import {
  APPROVALS_COPY,
  approvalsAnnouncement,
  approvalsCount,
  approvalsDone,
  approvalsNeed,
  decisionWords,
  shownState,
} from '../approvals';

/**
 * A guardian's reason, unless it only repeats its state: 'unreachable' over 'unreachable
 * (ECONNREFUSED)' says all a user can use; the socket's error code is for the server's log.
 */
const reasonOf = ({ state, reason }: GuardianDecision) =>
  reason && !reason.trim().toLowerCase().startsWith(decisionWords(state)) ? reason : null;

/**
 * "2 of 3 guardians approved" and what it means, kept current as each decision arrives, and the
 * approvals' one polite live region beside it (sr-only), which speaks once per phase: waiting,
 * enough to sign, too few (approvalsAnnouncement). A flood of decisions is heard once, not per
 * guardian; the count on screen is out of any live region (aria-live off, also inside the banner's
 * status). The live region is there, empty, before the first approvals arrive, so the first one
 * is announced too; without approvals (the server signing alone) both stay empty.
 */
export function ApprovalsCount({
  approvals,
  failed,
  over = failed,
  silent = false,
}: {
  approvals: Approvals | null;
  failed: boolean;
  /** the request is over (failed, or signed and sent): no guardian is waited for any more */
  over?: boolean;
  /** another view of the same approvals speaks (the drawer's tracker, open over this one) */
  silent?: boolean;
}) {
  const done = approvals !== null && approvalsDone(approvals);
  const tone = done ? 'done' : failed ? 'error' : 'waiting';
  return (
    <>
      <p className={`approvals__count approvals__count--${tone}`} aria-live="off">
        {approvals && (
          <>
            <span className="approvals__mark" aria-hidden="true" />
            <span className="approvals__total">{approvalsCount(approvals)}</span>
            <span className="approvals__need">, {approvalsNeed(approvals, over)}</span>
          </>
        )}
      </p>
      <span
        className="sr-only approvals__announce"
        aria-live={silent ? 'off' : 'polite'}
        aria-atomic="true"
      >
        {approvalsAnnouncement(approvals, over)}
      </span>
    </>
  );
}

/**
 * Each guardian's decision in words, its reason under it; nothing without guardians. Once the
 * request is over, a guardian still pending shows as 'no answer', never as waiting.
 */
export function ApprovalsList({
  approvals,
  over = false,
  id,
}: {
  approvals: Approvals | null;
  over?: boolean;
  id?: string;
}) {
  if (!approvals || approvals.guardians.length === 0) return null;
  // signed by the first t: a guardian that had not answered was not needed, not silent
  const signed = approvalsDone(approvals);
  return (
    <ul id={id} className="approvals__list" aria-label={APPROVALS_COPY.list}>
      {approvals.guardians.map((guardian) => (
        <li
          key={guardian.id}
          className={`approvals__guardian approvals__guardian--${shownState(guardian.state, over, signed)}`}
        >
          <span className="approvals__icon" aria-hidden="true" />
          <span className="approvals__name">{guardian.name}</span>
          <span className="approvals__state">
            <span className="sr-only">: </span>
            {decisionWords(guardian.state, over, signed)}
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
 * "2 of 3 guardians approved" and each guardian's decision, under the tracker's
 * network approvals line. Each state is said in words; the marks beside them are the style's
 * (flows.css), for the eye only, so the tracker's own ✓ stay the only ones in its text. Without
 * approvals (the server signing alone) it stays empty. The pending banner shows the same two parts
 * (vault/BannerApprovals.tsx).
 */
export function GuardianApprovals({
  approvals,
  failed,
  over = failed,
}: {
  approvals: Approvals | null;
  failed: boolean;
  /** the request is over: failed, or signed and sent */
  over?: boolean;
}) {
  return (
    <div className="approvals">
      <ApprovalsCount approvals={approvals} failed={failed} over={over} />
      <ApprovalsList approvals={approvals} over={over} />
    </div>
  );
}

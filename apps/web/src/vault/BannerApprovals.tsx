import { useId, useState } from 'react';
import { ChevronDown } from 'lucide-react';
import type { Approvals } from '@unit/protocol/wire';
import { ApprovalsCount, ApprovalsList } from '../flows/steps/GuardianApprovals';

/**
 * In the pending banner: an action's drawer closes once the wallet has signed, so
 * the guardians' approvals arrive while the user reads the banner. One short line, "2 of 3
 * guardians approved" (the tracker's words and its one polite live region, which speaks once per
 * phase), and a Details disclosure that lists each guardian's state and reason. The count and the
 * list are kept out of the banner's own live region (aria-live off): a screen reader hears the
 * phase change, not every row nor every decision.
 */
export function BannerApprovals({
  approvals,
  failed,
  over,
  silent = false,
}: {
  approvals: Approvals;
  failed: boolean;
  /** failed, or submitted: a guardian still pending gave no answer */
  over: boolean;
  /** the drawer's tracker, open over this, says the same: one voice, not two */
  silent?: boolean;
}) {
  const [open, setOpen] = useState(false);
  const listId = useId();
  return (
    <div className="banner__approvals">
      <div className="banner__approvals-line">
        <ApprovalsCount approvals={approvals} failed={failed} over={over} silent={silent} />
        {approvals.guardians.length > 0 && (
          <button
            type="button"
            className="btn btn--ghost btn--small banner__details"
            aria-expanded={open}
            aria-controls={listId}
            onClick={() => setOpen((was) => !was)}
          >
            Details
            <ChevronDown size={14} aria-hidden="true" />
          </button>
        )}
      </div>
      <div aria-live="off" hidden={!open}>
        <ApprovalsList approvals={approvals} over={over} id={listId} />
      </div>
    </div>
  );
}

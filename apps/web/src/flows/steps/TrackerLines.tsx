import type { FlowDecl } from '../declarations';
import type { FlowState } from '../engine';
import { GuardianApprovals } from './GuardianApprovals';

/** The tracker's lines: done, active, failed or to do, from the flow's progress (SPEC §4). */
export function TrackerLines({ flow, decl }: { flow: FlowState; decl: FlowDecl }) {
  const failed = flow.status === 'error';
  // Failed or signed and sent: no guardian is waited for any more.
  const over = failed || flow.status === 'confirmed';
  // Each guardian's approval under the line it was reported at (or will be).
  const approvalsStep = flow.approvals?.step ?? decl.approvalsStep;
  return (
    <ol className="tracker" aria-label="Progress">
      {decl.progressSteps.map((label, i) => {
        const n = i + 1;
        const state =
          failed && n === flow.progress
            ? 'error'
            : n < flow.progress || flow.status === 'confirmed'
              ? 'done'
              : n === flow.progress
                ? 'active'
                : 'todo';
        return (
          <li
            key={label}
            className={`tracker__step tracker__step--${state}`}
            aria-current={state === 'active' ? 'step' : undefined}
          >
            <span className="tracker__dot" aria-hidden="true">
              {state === 'done' ? '✓' : n}
            </span>
            <span className="tracker__label">{label}</span>
            {n === approvalsStep && (
              <GuardianApprovals
                approvals={flow.approvals?.value ?? null}
                failed={failed}
                over={over}
              />
            )}
          </li>
        );
      })}
    </ol>
  );
}

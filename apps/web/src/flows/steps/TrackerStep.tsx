import { useId, useState } from 'react';
import { isNoAccountsError } from '@unit/protocol';
import { WalletError } from '../../wallet/errors';
import { flowErrorWords } from '../refusal';
import { useFlows } from '../FlowProvider';
import { ResendButton } from '../ResendButton';
import { RetryCountdown } from './RetryCountdown';
import type { StepProps } from './step-props';
import { TrackerLines } from './TrackerLines';

/**
 * The tracker (SPEC §4): the flow's progress lines, its error, its details, and the buttons that
 * apply. A button of its own goes in the footer's list below, as a component of its own file.
 */
export function TrackerStep({ flow, decl, retry }: StepProps) {
  const flows = useFlows();
  const [showDetails, setShowDetails] = useState(false);
  const detailsId = useId();
  const failed = flow.status === 'error';
  // A wallet that shares no account says so in its own words: its error code is what counts.
  const noAccounts =
    isNoAccountsError(flow.error) ||
    (flow.error instanceof WalletError && flow.error.code === 'no_accounts');
  const offerRetry = failed && decl.retryOnNoAccounts && noAccounts;
  return (
    <div className="flow-step">
      <TrackerLines flow={flow} decl={decl} />
      {failed && (
        <p className="field-error" role="alert">
          {flowErrorWords(flow.error)}
        </p>
      )}
      {failed && <ResendButton flow={flow} />}
      {showDetails && (
        <dl className="summary" id={detailsId}>
          <div>
            <dt>Status</dt>
            <dd>{flow.status}</dd>
          </div>
          <div>
            <dt>Step</dt>
            <dd>
              {flow.progress} of {decl.progressSteps.length}
            </dd>
          </div>
        </dl>
      )}
      <footer className="flow-actions">
        {offerRetry && retry && <RetryCountdown onRetry={retry} />}
        {failed ? (
          <button
            type="button"
            className="btn btn--primary"
            onClick={() => flows.dispatch({ type: 'back' })}
          >
            Back
          </button>
        ) : (
          // A disclosure: a screen reader hears whether its details are open, and which they are.
          <button
            type="button"
            className="btn"
            aria-expanded={showDetails}
            aria-controls={showDetails ? detailsId : undefined}
            onClick={() => setShowDetails((v) => !v)}
          >
            Details
          </button>
        )}
      </footer>
    </div>
  );
}

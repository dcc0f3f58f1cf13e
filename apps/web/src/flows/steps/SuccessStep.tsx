import { TxLink } from '../../ui/TxLink';
import { useFlows } from '../FlowProvider';
import type { StepProps } from './step-props';
import { TrackerLines } from './TrackerLines';

/**
 * The last step: the success title, the transaction's link, and Close. The tracker stays under the
 * title where the drawer stays open (a speed-up, a repossess) and wherever the guardians approved:
 * the creation's Transaction Tracker still shows who approved at its step 4.
 */
export function SuccessStep({ flow, decl, step }: StepProps) {
  const flows = useFlows();
  return (
    <div className="flow-step flow-step--success">
      <p className="success-mark" aria-hidden="true">
        ✓
      </p>
      <h3>{decl.successTitle}</h3>
      {(decl.keepsDrawer || flow.approvals) && <TrackerLines flow={flow} decl={decl} />}
      {flow.result && <TxLink txid={flow.result.txid} />}
      <footer className="flow-actions">
        <button
          type="button"
          className="btn btn--primary"
          onClick={() => flows.setDrawerOpen(false)}
        >
          {step.primary}
        </button>
      </footer>
    </div>
  );
}

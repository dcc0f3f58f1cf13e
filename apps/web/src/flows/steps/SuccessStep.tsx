import { TxLink } from '../../ui/TxLink';
import { useFlows } from '../FlowProvider';
import type { StepProps } from './step-props';
import { TrackerLines } from './TrackerLines';

/** The last step: the success title, the transaction's link, and Close. */
export function SuccessStep({ flow, decl, step }: StepProps) {
  const flows = useFlows();
  return (
    <div className="flow-step flow-step--success">
      <p className="success-mark" aria-hidden="true">
        ✓
      </p>
      <h3>{decl.successTitle}</h3>
      {decl.keepsDrawer && <TrackerLines flow={flow} decl={decl} />}
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

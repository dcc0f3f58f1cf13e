import { CONTENT } from '@unit/protocol';
import { WalletChoices } from '../../wallet/controls';
import { useFlows } from '../FlowProvider';

/** The wallets are listed in the step itself, not in a second modal over it. */
export function ConnectStep() {
  const flows = useFlows();
  return (
    <div className="flow-step flow-step--connect">
      <h3>{CONTENT.createDrawer.connectWalletStep}</h3>
      <p className="muted">{CONTENT.walletPicker.prompt}</p>
      <div className="wallet-choices">
        <WalletChoices />
      </div>
      <footer className="flow-actions">
        <button type="button" className="btn" onClick={() => flows.dispatch({ type: 'back' })}>
          Back
        </button>
      </footer>
    </div>
  );
}

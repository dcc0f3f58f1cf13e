import { CONTENT, type VaultAction } from '@unit/protocol';
import { useConfig } from '../api/config';
import { useNow } from '../ui/useNow';
import { useWallet } from '../wallet';
import { useOptionalFlows, type FlowsApi } from './FlowProvider';

/**
 * 'Speed up' for a vault transaction of this wallet still waiting for a block: opens the speed-up
 * flow (BIP-125 replacement at a higher fee). Small and self-contained, so the pending banner and
 * the transactions table can each hold one.
 */
export function SpeedUpButton(props: SpeedUpProps) {
  const flows = useOptionalFlows();
  return flows ? <SpeedUp {...props} flows={flows} /> : null;
}

interface SpeedUpProps {
  txid: string;
  action: VaultAction | null;
  /** unix seconds the transaction was sent: past SPEED_UP_AFTER, a line says it is slow */
  sentAt: number;
}

function SpeedUp({ flows, ...props }: SpeedUpProps & { flows: FlowsApi }) {
  const wallet = useWallet();
  const config = useConfig();
  const now = useNow(30_000);
  const { action, txid } = props;
  if (!wallet.account || action === null) return null;
  const slow = now / 1000 - props.sentAt >= config.constants.speedUpAfterSeconds;
  return (
    <>
      {slow && <span className="muted">{CONTENT.speedUp.stuck}</span>}
      <button
        type="button"
        className="btn btn--small"
        disabled={flows.activeAction}
        onClick={() => flows.openFlow('speedup', { kind: 'speedup', txid, action })}
      >
        {CONTENT.speedUp.button}
      </button>
    </>
  );
}

import type { ConfigDto } from '@unit/protocol';
import type { useWallet } from '../wallet';
import type { FlowAction, FlowTarget } from './declarations';
import type { FlowResultIds } from './engine';

/** What a flow's form collected; amounts are integers (sats, UNIT hundredths). */
export interface FlowInput {
  name: string;
  /** deposit/withdraw amount, or the create deposit */
  sats: bigint;
  /** borrow/repay amount, or the create borrow */
  cents: bigint;
  feeRate: number;
  /** the liquidated vault of a repossess, the transaction of a speed-up */
  target?: FlowTarget;
}

/** Reports the tracker step that is now active (1 signature collection … last submitting). */
export type OnProgress = (step: number) => void;

export interface ExecuteContext {
  config: ConfigDto;
  wallet: Pick<ReturnType<typeof useWallet>, 'account' | 'signPsbt'>;
  /**
   * Called as the signed request goes to the guardian: the flow's time-out counts from here, not
   * from the wallet prompt (a user may read the prompt for minutes).
   */
  onSent?: () => void;
}

export type ExecuteFlow = (
  action: FlowAction,
  input: FlowInput,
  onProgress: OnProgress,
  context: ExecuteContext,
) => Promise<FlowResultIds>;

/**
 * The step that talks to the wallet and the guardian. The client (PSBT building with @unit/bitcoin)
 * is imported dynamically so @scure/* stays out of the dashboard's initial chunk.
 */
export const executeFlow: ExecuteFlow = async (action, input, onProgress, context) => {
  const client = await import('./guardian-client');
  const { target } = input;
  if (action === 'repossess' && target?.kind === 'repossess')
    return client.runRepossess(target.vault, input.feeRate, onProgress, context);
  if (action === 'speedup' && target?.kind === 'speedup')
    return client.runSpeedUp(target, input.feeRate, onProgress, context);
  if (action === 'repossess' || action === 'speedup') throw new Error('Nothing to act on');
  return client.runVaultAction(action, input, onProgress, context);
};

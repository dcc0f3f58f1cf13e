import type { ExecuteFlow } from './flow-types';

export type { ExecuteContext, ExecuteFlow, FlowInput, OnProgress } from './flow-types';

/**
 * The step that talks to the wallet and the guardian. The client (PSBT building with @unit/bitcoin)
 * is imported dynamically so @scure/* stays out of the dashboard's initial chunk.
 */
export const executeFlow: ExecuteFlow = async (action, input, onProgress, context) => {
  if (input.resend) {
    // The same signed request again: no new quote, no new signature.
    context.onSent?.();
    return input.resend.send(onProgress);
  }
  const client = await import('./guardian-client');
  const { target } = input;
  if (action === 'repossess' && target?.kind === 'repossess')
    return client.runRepossess(target.vault, input.feeRate, onProgress, context);
  if (action === 'speedup' && target?.kind === 'speedup')
    return client.runSpeedUp(target, input.feeRate, onProgress, context);
  if (action === 'repossess' || action === 'speedup') throw new Error('Nothing to act on');
  return client.runVaultAction(action, input, onProgress, context);
};

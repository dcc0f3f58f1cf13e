import type { LiquidatedVaultDto } from '@unit/protocol';
import type { ExecuteContext, OnProgress } from '../flows/execute';
import type { FlowResultIds } from '../flows/engine';

/**
 * Repossess goes through the guardian like every vault action. The client carries the Bitcoin
 * libraries, so it is loaded only when someone repossesses.
 */
export async function repossessVault(
  liquidated: LiquidatedVaultDto,
  feeRate: number,
  onProgress: OnProgress,
  context: ExecuteContext,
): Promise<FlowResultIds> {
  const { runRepossess } = await import('../flows/guardian-client');
  return runRepossess(liquidated, feeRate, onProgress, context);
}

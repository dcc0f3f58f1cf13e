// One declaration per vault action (docs/design.md, Vault actions): the web client, the guardian, the
// test harness and the scripts look an action up here instead of branching on its name.
import type { VaultAction } from '@unit/protocol';
import { borrow } from './borrow';
import { deposit } from './deposit';
import { open } from './open';
import { repay } from './repay';
import { repossess } from './repossess';
import { withdraw } from './withdraw';
import type { ActionDeclaration, VaultFields } from './types';

export const DECLARATIONS = { open, deposit, withdraw, borrow, repay, repossess } as const;

/** An action's declaration, typed for callers that hold an action of any kind. */
export function declarationOf<A extends VaultAction>(
  action: A,
): ActionDeclaration<A, never, VaultFields> {
  return DECLARATIONS[action] as ActionDeclaration<A, never, VaultFields>;
}

/** How many outputs an action has before its optional change (docs/protocol.md). */
export const outputLayoutLength = (action: VaultAction): number =>
  DECLARATIONS[action].outputs.slots.length;

export { open, deposit, withdraw, borrow, repay, repossess };
export { speedUp } from './speed-up';
export {
  guardianCheck,
  invalidTransaction,
  termRecordProblem,
  quorumCommitmentProblem,
  stateRulesRefusal,
  thresholdOfState,
  type GuardianCheckInput,
  type Refusal,
} from './check';
export { unitRunestoneScript } from './slots';
export * from './params';
export * from './types';
export { buildOpenPsbt, openPlan, type OpenParams } from './open';
export { buildDepositPsbt, depositPlan, type DepositParams } from './deposit';
export { buildBorrowPsbt, type BorrowParams } from './borrow';
export { buildRepayPsbt, type RepayParams, type RepaidVaultFields } from './repay';
export { buildWithdrawPsbt, withdrawFee, type WithdrawParams } from './withdraw';
export { buildRepossessPsbt, repossessionTax, type RepossessParams } from './repossess';
export type { IssuedVaultFields, IssueFields } from './slots';

// The web's flow names against the guardian's vault actions: the create flow opens a vault, a
// speed-up replaces one (no action of its own); every other flow is the action of its name.
import type { VaultAction } from '@unit/protocol';
import type { FlowAction } from './declarations';

const VAULT_ACTION_OF: Record<FlowAction, VaultAction | null> = {
  create: 'open',
  deposit: 'deposit',
  withdraw: 'withdraw',
  borrow: 'borrow',
  repay: 'repay',
  repossess: 'repossess',
  speedup: null,
};

export function vaultActionOf(flow: FlowAction): VaultAction | null {
  return VAULT_ACTION_OF[flow];
}

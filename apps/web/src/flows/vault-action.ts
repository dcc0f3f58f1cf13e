// The web's flow names against the guardian's vault actions: the create flow opens a vault, a
// speed-up replaces one; every other flow is the action of its name.
import type { VaultAction } from '@unit/protocol';
import type { FlowAction } from './declarations';

export function vaultActionOf(flow: FlowAction): VaultAction | null {
  if (flow === 'create') return 'open';
  if (flow === 'speedup') return null;
  return flow;
}

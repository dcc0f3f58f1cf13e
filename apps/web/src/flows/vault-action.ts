// The web's flow names against the guardian's vault actions: the create flow opens a vault, a
// speed-up replaces one (no action of its own); every other flow is the action of its name. What a
// flow's form does with the fee, the postage and the wallet's sats follows from that action's
// ACTION_SHAPES entry, not from a list of names.
import {
  ACTION_SHAPES,
  type ActionShape,
  type PendingType,
  type VaultAction,
} from '@unit/protocol';
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

export function vaultActionOf(flow: PendingType): VaultAction;
export function vaultActionOf(flow: FlowAction): VaultAction | null;
export function vaultActionOf(flow: FlowAction): VaultAction | null {
  return VAULT_ACTION_OF[flow];
}

/** The flow's action's shape; null for a speed-up, whose transaction is another action's. */
export function shapeOfFlow(flow: FlowAction): ActionShape | null {
  const action = VAULT_ACTION_OF[flow];
  return action ? ACTION_SHAPES[action] : null;
}

export interface FlowFacts {
  /** The fee comes out of the vault (no payment inputs), priced for the wallet's own address. */
  feeFromVault: boolean;
  /** The UNIT postage the payment funds goes back to the treasury, not with the user's UNIT. */
  postageToTreasury: boolean;
  /**
   * The form moves UNIT alone, paid from the wallet: its sats are checked apart against the
   * operation cost (SPEC §5).
   */
  checksWalletCost: boolean;
}

export function flowFacts(flow: FlowAction): FlowFacts {
  const shape = shapeOfFlow(flow);
  return {
    feeFromVault: shape !== null && !shape.paysFromWallet,
    postageToTreasury: shape?.fundedPostage === 'treasury',
    checksWalletCost: shape !== null && shape.paysFromWallet && shape.btc === 0 && shape.unit !== 0,
  };
}

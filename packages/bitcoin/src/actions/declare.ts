// What every action's declaration derives from its name alone, so each action file states only what
// is its own: the SPEC-level shape of @unit/protocol, the guardian's JSON-RPC method, the fixed
// inputs and who signs each (the shape's inputs but the wallet's own UNIT outputs), and (unless the
// action says otherwise) a history row of the BTC and UNIT its transaction moved. Also the first
// step of decoding an action that spends the requester's vault: the new vault and that vault as it
// was.
import { ACTION_SHAPES, type ShapeInput, type VaultAction } from '@unit/protocol';
import type { PlannedOutput } from '../flows/vault-tx';
import { decodeVault, LIQUIDATED_INPUT, TREASURY_INPUT, VAULT_INPUT } from './slots';
import {
  check,
  type ActionDeclaration,
  type InputRole,
  type ParseContext,
  type PayloadAmount,
  type VaultFields,
} from './types';

type Derived = 'action' | 'shape' | 'method' | 'spends' | 'historyAmounts';

/** The guardian's role for each fixed input kind; the wallet's UNIT outputs are not fixed inputs. */
const ROLE_OF: Record<ShapeInput, InputRole | null> = {
  'vault-update': VAULT_INPUT,
  'vault-liquidation': LIQUIDATED_INPUT,
  treasury: TREASURY_INPUT,
  unit: null,
};

/** An action's own parts; `historyAmounts` only when its history row records something else. */
export type DeclarationParts<A extends VaultAction, P, F extends VaultFields> = Omit<
  ActionDeclaration<A, P, F>,
  Derived
> &
  Partial<Pick<ActionDeclaration<A, P, F>, 'historyAmounts'>>;

export function declareAction<A extends VaultAction, P, F extends VaultFields>(
  action: A,
  parts: DeclarationParts<A, P, F>,
): ActionDeclaration<A, P, F> {
  return {
    action,
    shape: ACTION_SHAPES[action],
    method: `vault.${action}`,
    spends: ACTION_SHAPES[action].inputs.flatMap((kind) => ROLE_OF[kind] ?? []),
    historyAmounts: (tx) => ({ btc: tx.btcAmount, unit: tx.unitAmount }),
    ...parts,
  };
}

/** The vault an action spends, as the context knows it. */
export type VaultBefore = NonNullable<ParseContext['vault']>;

/**
 * Decodes the new vault of an action that spends the requester's vault (deposit, withdraw, borrow,
 * repay, repossess), with that vault as it was before the action.
 */
export function decodeUpdate(
  outputs: readonly PlannedOutput[],
  action: VaultAction,
  ctx: ParseContext,
): { vault: VaultFields; before: VaultBefore } {
  const vault = decodeVault(outputs, action, ctx);
  const before = ctx.vault;
  check(before !== undefined, 'context has no vault');
  return { vault, before };
}

/** One amount of the payload the transaction must move exactly. */
export const moved = (
  what: PayloadAmount['moved'],
  amount: number,
  name: string,
): PayloadAmount => ({ moved: what, amount, what: name });

import {
  ACTION_SHAPES,
  actionAmountOf,
  applyAction,
  collateralRatio,
  healthStatus,
  type PendingTransaction,
  type PendingType,
  type PriceInput,
  type Sats,
  type UnitCents,
  type VaultState,
} from '@unit/protocol';
import type { FlowAction } from './declarations';
import type { FlowResultIds } from './engine';
import type { FlowInput } from './flow-types';
import { vaultActionOf } from './vault-action';

/** What a flow's form shows as "before -> after" and what its pending entry records. */
export interface FlowPreview {
  before: VaultState;
  /** null when the amount cannot be applied (more than the vault holds or owes) */
  after: VaultState | null;
  priceUsd: PriceInput;
}

/** The vault after the flow's action, by @unit/protocol's applyAction; null when it would go negative. */
export function previewAfter(
  before: VaultState,
  action: FlowAction,
  amounts: { sats: Sats; cents: UnitCents; feeSats: Sats },
): VaultState | null {
  const vaultAction = vaultActionOf(action);
  // Repossess and speed-up show their own figures (repossessFigures, the fee rates).
  if (vaultAction === null || vaultAction === 'repossess') return null;
  try {
    const amount = actionAmountOf(vaultAction, { btcSats: amounts.sats, unitCents: amounts.cents });
    // A withdraw's fee comes out of the vault (docs/protocol.md); applyAction takes it there only.
    return applyAction(before, vaultAction, amount, { feeSats: amounts.feeSats });
  } catch (error) {
    if (error instanceof RangeError) return null;
    throw error;
  }
}

const finiteOrNull = (ratio: number) => (Number.isFinite(ratio) ? ratio : null);

function health(state: VaultState, priceUsd: PriceInput) {
  const ratio = collateralRatio(state.btcSats, state.unitCents, priceUsd);
  const { text, colour } = healthStatus(ratio);
  return { factor: finiteOrNull(ratio), status: { text, colour } };
}

/** SPEC §3 Pending transaction: stored once a flow is submitted, 'In Progress' until history has it. */
export function pendingEntry(
  action: PendingType,
  input: FlowInput,
  preview: FlowPreview,
  ids: FlowResultIds,
  nowSeconds: number,
): PendingTransaction {
  const vaultAction = vaultActionOf(action);
  const shape = vaultAction ? ACTION_SHAPES[vaultAction] : null;
  // What the entry counts: BTC for the actions that move it (an open too), UNIT for the others.
  const btc = shape !== null && shape.btc !== 0;
  const after = preview.after ?? preview.before;
  const before = health(preview.before, preview.priceUsd);
  const next = health(after, preview.priceUsd);
  return {
    date: nowSeconds,
    type: action,
    amount: (btc ? input.sats : input.cents).toString(),
    amountUnit: btc ? 'BTC' : 'UNIT',
    status: 'In Progress',
    transactionId: ids.txid,
    vault_txid: ids.vaultTxid || null,
    btcInVault: after.btcSats.toString(),
    unitInVault: after.unitCents.toString(),
    healthFactorBefore: before.factor,
    healthFactorAfter: next.factor,
    healthStatusBefore: before.status,
    healthStatusAfter: next.status,
    isFullRepay:
      shape !== null &&
      shape.unit < 0 &&
      preview.before.unitCents > 0n &&
      input.cents >= preview.before.unitCents,
  };
}

import {
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
  try {
    switch (action) {
      case 'create':
        return applyAction(before, 'open', { btcSats: amounts.sats, unitCents: amounts.cents });
      case 'deposit':
        return applyAction(before, 'deposit', amounts.sats);
      case 'withdraw':
        // The fee comes out of the vault (docs/protocol.md).
        return applyAction(before, 'withdraw', amounts.sats, { feeSats: amounts.feeSats });
      case 'borrow':
        return applyAction(before, 'borrow', amounts.cents);
      case 'repay':
        return applyAction(before, 'repay', amounts.cents);
      default:
        // Repossess and speed-up show their own figures (repossessFigures, the fee rates).
        return null;
    }
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
  const btc = action === 'deposit' || action === 'withdraw' || action === 'create';
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
      action === 'repay' &&
      preview.before.unitCents > 0n &&
      input.cents >= preview.before.unitCents,
  };
}

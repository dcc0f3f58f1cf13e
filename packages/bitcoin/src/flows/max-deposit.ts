// The exact maximum deposit from the wallet's UTXOs (SPEC §5: "For a max deposit the amount is
// refined using the wallet's UTXOs").
import { feeFor, inputWeight, paymentScriptKind, weightToVsize } from './vsize';
import { depositPlan, openPlan, type DepositParams, type OpenParams } from '../actions';
import { isEconomic, type PaymentUtxo } from './coin-select';
import { planWeight, type VaultTxPlan } from './vault-tx';

/** SPEC §8: the error of a max deposit refinement that fails. */
export const MAX_DEPOSIT_ERROR = 'Cannot get utxo for max deposit amount';

export interface RefineMaxDepositParams {
  utxos: readonly PaymentUtxo[];
  /** sat/vB */
  feeRate: number;
  /**
   * Weight of the deposit (or open) transaction without payment inputs and without change:
   * `maxVaultDeposit` and `maxOpenDeposit` work it out from the action's plan.
   */
  fixedWeight: number;
  /** Sats the payment inputs must also pay besides the deposit and fee (UNIT postage on open). */
  fixedCost?: bigint;
  /** The refined amount must leave at least this much in the vault (0n by default). */
  minimum?: bigint;
}

/**
 * Spends every payment UTXO with no change output: the deposit is what is left after the fee of
 * exactly that transaction and the fixed costs. UTXOs worth less than the fee of spending them are
 * left out, since adding them would lower the maximum. Throws `Cannot get utxo for max deposit
 * amount` (SPEC §8) when no UTXO is usable or nothing (or less than `minimum`) is left.
 */
export function refineMaxDeposit(params: RefineMaxDepositParams): bigint {
  const fixedCost = params.fixedCost ?? 0n;
  let weight = params.fixedWeight;
  let sum = 0n;
  for (const utxo of params.utxos) {
    const kind = paymentScriptKind(utxo.script);
    if (!kind) continue;
    if (!isEconomic(utxo, kind, params.feeRate)) continue;
    weight += inputWeight(kind);
    sum += utxo.value;
  }
  if (sum === 0n) throw new Error(MAX_DEPOSIT_ERROR);
  const amount = sum - fixedCost - feeFor(weightToVsize(weight), params.feeRate);
  if (amount <= 0n || amount < (params.minimum ?? 0n)) throw new Error(MAX_DEPOSIT_ERROR);
  return amount;
}

function fixedPart(plan: VaultTxPlan): { fixedWeight: number; fixedCost: bigint } {
  const total = (values: bigint[]) => values.reduce((a, b) => a + b, 0n);
  return {
    fixedWeight: planWeight(plan),
    // With a zero deposit, what the outputs need beyond the fixed inputs is the fixed cost.
    fixedCost: total(plan.outputs.map((o) => o.amount)) - total(plan.inputs.map((i) => i.value)),
  };
}

/** The exact max deposit into an existing vault from the wallet's UTXOs. */
export function maxVaultDeposit(params: Omit<DepositParams, 'depositAmount'>): bigint {
  const { plan } = depositPlan({ ...params, depositAmount: 0n });
  return refineMaxDeposit({ utxos: params.utxos, feeRate: params.feeRate, ...fixedPart(plan) });
}

/** The exact max deposit of a vault opening (the UNIT postage is paid on top). */
export function maxOpenDeposit(params: Omit<OpenParams, 'depositAmount'>): bigint {
  const { plan } = openPlan({ ...params, depositAmount: 0n });
  return refineMaxDeposit({ utxos: params.utxos, feeRate: params.feeRate, ...fixedPart(plan) });
}

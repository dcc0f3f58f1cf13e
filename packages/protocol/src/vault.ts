// The vault state after an action: the live before -> after preview of the drawers and the state the
// guardian writes into the state record (docs/protocol.md).
import { ACTION_SHAPES } from './action-shapes';
import type { ActionCode, VaultAction } from './api';
import { COLLATERAL_PERCENT, REPOSSESSION_TAX_PERCENT } from './constants';
import { collateralRatio, ratioAtLeast } from './ratio';
import {
  sats,
  unitCents,
  type Sats,
  type SatsInput,
  type UnitCents,
  type UnitCentsInput,
  type PriceInput,
} from './units';

export interface VaultState {
  btcSats: Sats;
  unitCents: UnitCents;
}

/** The state record's letter of each action: ACTION_SHAPES' `code`, as a map. */
export const ACTION_CODE_OF = Object.fromEntries(
  Object.entries(ACTION_SHAPES).map(([action, shape]) => [action, shape.code]),
) as Record<VaultAction, ActionCode>;

/** The action a history record's transaction performed; a liquidation (`l`) is no transaction of ours. */
export function actionOfCode(code: ActionCode): VaultAction | null {
  const entry = Object.entries(ACTION_CODE_OF).find(([, c]) => c === code);
  return entry ? (entry[0] as VaultAction) : null;
}

/** What an action moves: BTC for deposit and withdraw, UNIT for borrow and repay, both to open. */
export type ActionAmount =
  SatsInput | UnitCentsInput | { btcSats: SatsInput; unitCents: UnitCentsInput };

export interface ApplyOptions {
  /** withdraw: the fee, taken out of the vault (docs/protocol.md). */
  feeSats?: SatsInput;
}

/**
 * The amount applyAction takes for `action`, from a form's two figures: both to open, the BTC of a
 * deposit or withdraw, the UNIT of a borrow or repay (ACTION_SHAPES says which it moves).
 */
export function actionAmountOf(
  action: Exclude<VaultAction, 'repossess'>,
  amounts: { btcSats: SatsInput; unitCents: UnitCentsInput },
): ActionAmount {
  const shape = ACTION_SHAPES[action];
  if (shape.btc !== 0 && shape.unit !== 0) return amounts;
  return shape.unit !== 0 ? amounts.unitCents : amounts.btcSats;
}

/**
 * The next {btcSats, unitCents} after `action`. Open takes {btcSats, unitCents}; deposit and withdraw
 * take sats; borrow and repay take UNIT hundredths. Throws a RangeError when the result would be
 * negative (withdrawing or repaying more than there is).
 */
export function applyAction(
  state: { btcSats: SatsInput; unitCents: UnitCentsInput },
  action: Exclude<VaultAction, 'repossess'>,
  amount: ActionAmount,
  options: ApplyOptions = {},
): VaultState {
  const btc = sats(state.btcSats);
  const debt = unitCents(state.unitCents);
  const single = (): bigint => {
    if (typeof amount === 'object') throw new TypeError(`${action} takes a single amount`);
    const v = BigInt(amount);
    if (v < 0n) throw new RangeError('an amount cannot be negative');
    return v;
  };
  const shape = ACTION_SHAPES[action];
  let moved: { btc: bigint; debt: bigint };
  if (shape.btc !== 0 && shape.unit !== 0) {
    if (typeof amount !== 'object') throw new TypeError(`${action} takes {btcSats, unitCents}`);
    moved = { btc: sats(amount.btcSats), debt: unitCents(amount.unitCents) };
  } else {
    const v = single();
    moved = { btc: shape.btc === 0 ? 0n : v, debt: shape.unit === 0 ? 0n : v };
  }
  const fee = shape.btc < 0 ? sats(options.feeSats ?? 0) : 0n;
  const next = {
    btc: btc + BigInt(shape.btc) * moved.btc - fee,
    debt: debt + BigInt(shape.unit) * moved.debt,
  };
  if (next.btc < 0n) throw new RangeError('the vault does not hold that much BTC');
  if (next.debt < 0n) throw new RangeError('the repayment exceeds the debt');
  return { btcSats: next.btc as Sats, unitCents: next.debt as UnitCents };
}

/** The repossession tax: 15% of the liquidated collateral, rounded down (ARCHITECTURE: Liquidation). */
export function repossessionTaxSats(liquidatedSats: SatsInput | bigint): Sats {
  return sats((BigInt(liquidatedSats) * BigInt(REPOSSESSION_TAX_PERCENT)) / 100n);
}

/** What a repossess moves: the collateral the claimant takes and the tax the treasury keeps. */
export function repossessionClaim(liquidatedSats: SatsInput | bigint): {
  takenSats: Sats;
  taxSats: Sats;
} {
  const taxSats = repossessionTaxSats(liquidatedSats);
  return { takenSats: sats(BigInt(liquidatedSats) - taxSats), taxSats };
}

/**
 * The claimant's vault after a repossess: it takes the liquidated vault's debt and its collateral
 * less the tax. The guardian accepts it only if the result keeps 160% at the oracle price.
 */
export function repossessState(
  own: { btcSats: SatsInput; unitCents: UnitCentsInput },
  liquidated: { btcSats: SatsInput; unitCents: UnitCentsInput },
): VaultState {
  const taken = repossessionClaim(liquidated.btcSats).takenSats;
  return {
    btcSats: sats(sats(own.btcSats) + taken),
    unitCents: unitCents(unitCents(own.unitCents) + unitCents(liquidated.unitCents)),
  };
}

/** What the repossess review shows, from the claimant's vault and the liquidated one at a price. */
export interface RepossessFigures {
  takenSats: Sats;
  taxSats: Sats;
  debtCents: UnitCents;
  after: VaultState;
  ratioAfter: number;
  /** the guardian's rule: the claimant's vault keeps 160% after taking the claim on */
  safe: boolean;
}

export function repossessFigures(
  own: { btcSats: SatsInput; unitCents: UnitCentsInput },
  liquidated: { btcSats: SatsInput; unitCents: UnitCentsInput },
  priceUsd: PriceInput,
): RepossessFigures {
  const { takenSats, taxSats } = repossessionClaim(liquidated.btcSats);
  const after = repossessState(own, liquidated);
  return {
    takenSats,
    taxSats,
    debtCents: unitCents(liquidated.unitCents),
    after,
    ratioAfter: collateralRatio(after.btcSats, after.unitCents, priceUsd),
    safe: ratioAtLeast(after.btcSats, after.unitCents, priceUsd, COLLATERAL_PERCENT),
  };
}

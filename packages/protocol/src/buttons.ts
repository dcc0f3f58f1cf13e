// SPEC §4 "Button enablement" and §6: whether each dashboard action button is enabled, and why not
// (the tooltip text).
import { maxBorrowCents, requiredCollateralSats } from './limits';
import { ERROR_MESSAGES } from './errors';
import {
  isKnownPrice,
  sats,
  unitCents,
  type PriceInput,
  type SatsInput,
  type UnitCentsInput,
} from './units';
import { transactionCostMessage } from './validation';

export type DashboardAction = 'deposit' | 'withdraw' | 'borrow' | 'repay';

export type ButtonState = { enabled: true } | { enabled: false; reason: string };

export interface ButtonContext {
  hasPendingTransaction: boolean;
  isLiquidated: boolean;
  /** the guardians settled the vault at its term: it holds nothing and takes no action */
  isSettled?: boolean;
  /** its owner took it through the exit leaf: it holds nothing and takes no action */
  isExited?: boolean;
  /** the action whose drawer is open or whose flow runs, if any */
  activeAction: DashboardAction | 'create' | null;
  walletSats: SatsInput;
  vaultSats: SatsInput;
  debtCents: UnitCentsInput;
  priceUsd: PriceInput;
  /** operation cost of this action at the selected fee rate (its quote) */
  operationCostSats: SatsInput;
  /**
   * While the price is stale (no guardian quorum, no fresh feed): the paused reason (price-pause.ts
   * `buttonReason`), since every action needs a freshly signed price; null or absent while fresh.
   */
  pricePaused?: string | null;
}

export const BUTTON_REASONS = {
  pending: 'A transaction is pending. Please wait until it completes.',
  liquidated: 'All actions are disabled until liquidation completes.',
  settled:
    'The guardians settled this vault at its term, so it holds nothing now. Open a new vault to borrow again.',
  exited:
    'You took this vault through its exit, so it holds nothing now. Open a new vault to borrow again.',
  otherAction: 'Another action is in progress.',
  noWalletSats: 'There is no bitcoin in your wallet.',
  noPrice: ERROR_MESSAGES.noPrice,
  noBorrowCapacity: 'Your vault cannot support more borrowing.',
  noDebt: 'You have no UNIT debt to repay.',
  vaultBelowCost: 'The bitcoin in your vault does not cover the transaction cost.',
  nothingToWithdraw: 'Your collateral is needed to back your UNIT debt.',
} as const;

const ENABLED: ButtonState = { enabled: true };
const disabled = (reason: string): ButtonState => ({ enabled: false, reason });

function common(action: DashboardAction, ctx: ButtonContext): ButtonState {
  if (ctx.hasPendingTransaction) return disabled(BUTTON_REASONS.pending);
  if (ctx.isSettled) return disabled(BUTTON_REASONS.settled);
  if (ctx.isExited) return disabled(BUTTON_REASONS.exited);
  if (ctx.isLiquidated) return disabled(BUTTON_REASONS.liquidated);
  if (ctx.pricePaused) return disabled(ctx.pricePaused);
  if (ctx.activeAction !== null && ctx.activeAction !== action)
    return disabled(BUTTON_REASONS.otherAction);
  return ENABLED;
}

/** Deposit: disabled when the wallet holds no sats. */
export function depositButton(ctx: ButtonContext): ButtonState {
  const base = common('deposit', ctx);
  if (!base.enabled) return base;
  return sats(ctx.walletSats) <= 0n ? disabled(BUTTON_REASONS.noWalletSats) : ENABLED;
}

/**
 * Withdraw: disabled when the price is unknown, the vault sats are below the cost, or what remains
 * after the UNIT-backed requirement is below the cost.
 */
export function withdrawButton(ctx: ButtonContext): ButtonState {
  const base = common('withdraw', ctx);
  if (!base.enabled) return base;
  if (!isKnownPrice(ctx.priceUsd)) return disabled(BUTTON_REASONS.noPrice);
  const vault = sats(ctx.vaultSats);
  const cost = sats(ctx.operationCostSats);
  if (vault < cost) return disabled(BUTTON_REASONS.vaultBelowCost);
  const required = requiredCollateralSats(ctx.debtCents, ctx.priceUsd) ?? vault;
  if (vault - required < cost) return disabled(BUTTON_REASONS.nothingToWithdraw);
  return ENABLED;
}

/**
 * Borrow: disabled when the price is unknown, the vault cannot support more borrowing, or the wallet
 * would be left with negative BTC after the cost (SPEC §5 message).
 */
export function borrowButton(ctx: ButtonContext): ButtonState {
  const base = common('borrow', ctx);
  if (!base.enabled) return base;
  if (!isKnownPrice(ctx.priceUsd)) return disabled(BUTTON_REASONS.noPrice);
  if (maxBorrowCents(ctx.vaultSats, ctx.debtCents, ctx.priceUsd) <= 0n)
    return disabled(BUTTON_REASONS.noBorrowCapacity);
  if (sats(ctx.walletSats) < sats(ctx.operationCostSats)) {
    return disabled(transactionCostMessage(ctx.operationCostSats, ctx.walletSats));
  }
  return ENABLED;
}

/** Repay: disabled with no UNIT debt, or vault (or wallet, SPEC §5) sats below the repay cost. */
export function repayButton(ctx: ButtonContext): ButtonState {
  const base = common('repay', ctx);
  if (!base.enabled) return base;
  if (unitCents(ctx.debtCents) <= 0n) return disabled(BUTTON_REASONS.noDebt);
  if (sats(ctx.vaultSats) < sats(ctx.operationCostSats))
    return disabled(BUTTON_REASONS.vaultBelowCost);
  if (sats(ctx.walletSats) < sats(ctx.operationCostSats)) {
    return disabled(transactionCostMessage(ctx.operationCostSats, ctx.walletSats));
  }
  return ENABLED;
}

const BUTTONS: Record<DashboardAction, (ctx: ButtonContext) => ButtonState> = {
  deposit: depositButton,
  withdraw: withdrawButton,
  borrow: borrowButton,
  repay: repayButton,
};

export function buttonState(action: DashboardAction, ctx: ButtonContext): ButtonState {
  return BUTTONS[action](ctx);
}

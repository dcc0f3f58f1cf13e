import { describe, expect, it } from 'vitest';
import { BUTTON_REASONS, buttonState, type ButtonContext } from './buttons';
import { PRICE_PAUSE_COPY, pricePause } from './price-pause';

// 1 BTC at $100,000 with 50,000 UNIT of debt: ratio 200%, borrow room 12,500 UNIT.
const ctx: ButtonContext = {
  hasPendingTransaction: false,
  isLiquidated: false,
  activeAction: null,
  walletSats: 100_000,
  vaultSats: 100_000_000,
  debtCents: 5_000_000,
  priceUsd: 100_000,
  operationCostSats: 2_000,
};

describe('buttonState', () => {
  it('enables every action for a healthy vault with a funded wallet', () => {
    for (const action of ['deposit', 'withdraw', 'borrow', 'repay'] as const) {
      expect(buttonState(action, ctx)).toEqual({ enabled: true });
    }
  });
  it('disables every action during a pending transaction or a liquidation', () => {
    for (const action of ['deposit', 'withdraw', 'borrow', 'repay'] as const) {
      expect(buttonState(action, { ...ctx, hasPendingTransaction: true })).toEqual({
        enabled: false,
        reason: BUTTON_REASONS.pending,
      });
      expect(buttonState(action, { ...ctx, isLiquidated: true })).toEqual({
        enabled: false,
        reason: BUTTON_REASONS.liquidated,
      });
    }
  });
  it('disables every action with the cause while the price is stale, and only then', () => {
    const pause = pricePause({ stale: true, stale_reason: 'no_quorum' }, '02:52')!;
    for (const action of ['deposit', 'withdraw', 'borrow', 'repay'] as const) {
      expect(buttonState(action, { ...ctx, pricePaused: pause.buttonReason })).toEqual({
        enabled: false,
        reason: PRICE_PAUSE_COPY.button.no_quorum,
      });
      expect(buttonState(action, { ...ctx, pricePaused: null })).toEqual({ enabled: true });
    }
    // a pending transaction is the more specific reason
    expect(
      buttonState('borrow', {
        ...ctx,
        hasPendingTransaction: true,
        pricePaused: pause.buttonReason,
      }),
    ).toEqual({ enabled: false, reason: BUTTON_REASONS.pending });
  });
  it('disables the other actions while one is active, not the active one', () => {
    expect(buttonState('deposit', { ...ctx, activeAction: 'borrow' })).toEqual({
      enabled: false,
      reason: BUTTON_REASONS.otherAction,
    });
    expect(buttonState('borrow', { ...ctx, activeAction: 'borrow' })).toEqual({ enabled: true });
  });
  it('disables deposit with an empty wallet', () => {
    expect(buttonState('deposit', { ...ctx, walletSats: 0 })).toEqual({
      enabled: false,
      reason: BUTTON_REASONS.noWalletSats,
    });
  });
  it('disables borrow without a price, without room, or when the wallet cannot pay', () => {
    expect(buttonState('borrow', { ...ctx, priceUsd: null })).toEqual({
      enabled: false,
      reason: 'Can not fetch bitcoin price',
    });
    expect(buttonState('borrow', { ...ctx, debtCents: 6_250_000 })).toEqual({
      enabled: false,
      reason: BUTTON_REASONS.noBorrowCapacity,
    });
    expect(buttonState('borrow', { ...ctx, walletSats: 1_999 })).toEqual({
      enabled: false,
      reason: 'The transaction costs 0.00002 BTC, but you only have 0.00001999 BTC in your wallet',
    });
  });
  it('disables repay with no debt or when the vault sats are below the cost', () => {
    expect(buttonState('repay', { ...ctx, debtCents: 0 })).toEqual({
      enabled: false,
      reason: BUTTON_REASONS.noDebt,
    });
    expect(buttonState('repay', { ...ctx, vaultSats: 1_999 })).toEqual({
      enabled: false,
      reason: BUTTON_REASONS.vaultBelowCost,
    });
  });
  it('disables withdraw without a price, below the cost, or when the debt needs all the rest', () => {
    expect(buttonState('withdraw', { ...ctx, priceUsd: Number.NaN })).toEqual({
      enabled: false,
      reason: 'Can not fetch bitcoin price',
    });
    expect(buttonState('withdraw', { ...ctx, vaultSats: 1_000 })).toEqual({
      enabled: false,
      reason: BUTTON_REASONS.vaultBelowCost,
    });
    // 80,000 UNIT at 160% need 1.28 BTC at $100,000: nothing is free
    expect(buttonState('withdraw', { ...ctx, debtCents: 8_000_000 })).toEqual({
      enabled: false,
      reason: BUTTON_REASONS.nothingToWithdraw,
    });
    // 62,487.5 UNIT need 0.9998 BTC: 20,000 sats free, above the 2,000 cost
    expect(buttonState('withdraw', { ...ctx, debtCents: 6_248_750 })).toEqual({ enabled: true });
  });
});

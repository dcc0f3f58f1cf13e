import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  btcToSats,
  borrowButtonState,
  collateralRatio,
  depositButtonState,
  formatBtc,
  formatHealth,
  groupByMonth,
  healthBand,
  isLiquidated,
  liquidationPriceCents,
  maxBorrowCents,
  maxWithdrawSats,
  reconcilePending,
  repayButtonState,
  sanitizeAmountInput,
  toUserMessage,
  withdrawButtonState,
  type VaultActionContext,
} from './protocol-gaps';

describe('ratio and health', () => {
  it('computes 190% for 1 BTC backing 50,000 UNIT at 95,000 USD', () => {
    expect(collateralRatio(100_000_000n, 5_000_000n, 9_500_000n)).toBe(190);
  });
  it('defaults to 160 without debt or price', () => {
    expect(collateralRatio(100_000_000n, 0n, 9_500_000n)).toBe(160);
    expect(collateralRatio(100_000_000n, 5_000_000n, null)).toBe(160);
  });
  it('bands 135-160 Risky, 161-195 Moderate, 196+ Healthy, below 135 none', () => {
    expect([134, 135, 160, 161, 195, 196, 230].map(healthBand)).toEqual([
      null,
      'Risky',
      'Risky',
      'Moderate',
      'Moderate',
      'Healthy',
      'Healthy',
    ]);
  });
  it('formats 1 as N/A and 500 or more as 500+%', () => {
    expect([1, 180, 500, 900].map(formatHealth)).toEqual(['N/A', '180%', '500+%', '500+%']);
  });
  it('puts the liquidation price at debt × 1.35 / BTC', () => {
    expect(liquidationPriceCents(100_000_000n, 5_000_000n)).toBe(6_750_000n);
  });
});

describe('maxima', () => {
  it('borrows up to BTC × price / 1.6 minus the debt', () => {
    // 1 BTC at 96,000 supports 60,000 UNIT; 50,000 borrowed leaves 10,000
    expect(maxBorrowCents(100_000_000n, 5_000_000n, 9_600_000n, 160)).toBe(1_000_000n);
  });
  it('withdraws what keeps the ratio at 160% after cost and minimum balance', () => {
    const max = maxWithdrawSats({
      vaultSats: 100_000_000n,
      debtCents: 5_000_000n,
      priceCents: 9_600_000n,
      collateralPercent: 160,
      costSats: 1_000n,
      minVaultBalanceSats: 10_000n,
    });
    // 50,000 × 1.6 / 96,000 = 0.83333334 BTC needed (rounded up)
    expect(max).toBe(100_000_000n - 83_333_334n - 1_000n - 10_000n);
    expect(collateralRatio(100_000_000n - max, 5_000_000n, 9_600_000n)).toBeGreaterThanOrEqual(160);
  });
});

describe('amount input', () => {
  it('keeps digits and one point, caps decimals and integer digits', () => {
    expect(sanitizeAmountInput('1a2.3.4567890123', 8, 8)).toBe('12.34567890');
    expect(sanitizeAmountInput('123456789012345', 2, 12)).toBe('123456789012');
    expect(sanitizeAmountInput('1,000.555', 2, 12)).toBe('1000.55');
  });
  it('round-trips any sats amount through its BTC text', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 2_100_000_000_000_000n }), (sats) => {
        expect(btcToSats(formatBtc(sats))).toBe(sats);
      }),
    );
  });
});

describe('button enablement', () => {
  const ctx = (over: Partial<VaultActionContext> = {}): VaultActionContext => ({
    pending: false,
    liquidated: false,
    activeAction: false,
    priceCents: 9_500_000n,
    walletSats: 1_000_000n,
    vaultSats: 100_000_000n,
    debtCents: 5_000_000n,
    runeCents: 100_000n,
    collateralPercent: 160,
    minVaultBalanceSats: 10_000n,
    costSats: () => 5_000n,
    ...over,
  });
  it('disables everything during liquidation or a pending transaction, saying why', () => {
    expect(depositButtonState(ctx({ liquidated: true })).reason).toMatch(/liquidation/);
    expect(borrowButtonState(ctx({ pending: true })).reason).toMatch(/pending/);
  });
  it('disables deposit with an empty wallet and repay without debt', () => {
    expect(depositButtonState(ctx({ walletSats: 0n }))).toEqual({
      enabled: false,
      reason: 'Your wallet has no bitcoin',
    });
    expect(repayButtonState(ctx({ debtCents: 0n })).enabled).toBe(false);
  });
  it('disables borrow and withdraw without a price', () => {
    expect(borrowButtonState(ctx({ priceCents: null })).reason).toBe('Can not fetch bitcoin price');
    expect(withdrawButtonState(ctx({ priceCents: null })).reason).toBe(
      'Can not fetch bitcoin price',
    );
  });
  it('disables borrow when the vault supports no more', () => {
    expect(borrowButtonState(ctx({ priceCents: 8_000_000n })).enabled).toBe(false);
    expect(borrowButtonState(ctx()).enabled).toBe(true);
  });
});

describe('history and pending', () => {
  it('groups consecutive rows under MMMM yyyy headings', () => {
    const groups = groupByMonth([
      { date: Date.UTC(2026, 3, 2) / 1000 },
      { date: Date.UTC(2026, 3, 1) / 1000 },
      { date: Date.UTC(2026, 2, 31) / 1000 },
    ]);
    expect(groups.map((g) => [g.month, g.rows.length])).toEqual([
      ['April 2026', 2],
      ['March 2026', 1],
    ]);
  });
  it('completes a pending entry once history holds its txid or vault txid', () => {
    const p = {
      date: 0,
      type: 'deposit' as const,
      amount: '1',
      amountUnit: 'BTC' as const,
      status: 'In Progress' as const,
    };
    const out = reconcilePending(
      [
        { ...p, transactionId: 'a', vault_txid: 'a' },
        { ...p, transactionId: 'b', vault_txid: 'v' },
        { ...p, transactionId: 'c', vault_txid: 'c' },
      ],
      [{ transaction_id: 'a' }, { transaction_id: 'v' }],
    );
    expect(out.map((x) => x.status)).toEqual(['Completed', 'Completed', 'In Progress']);
  });
  it('is liquidated by list, by ratio at 135, or by a marker younger than 6 hours', () => {
    const base = {
      inLiquidatedList: false,
      ratio: 180,
      hasDebt: true,
      markerSetAt: null,
      nowSeconds: 100_000,
    };
    expect(isLiquidated(base)).toBe(false);
    expect(isLiquidated({ ...base, inLiquidatedList: true })).toBe(true);
    expect(isLiquidated({ ...base, ratio: 135 })).toBe(true);
    expect(isLiquidated({ ...base, markerSetAt: 100_000 - 21_599 })).toBe(true);
    expect(isLiquidated({ ...base, markerSetAt: 100_000 - 21_600 })).toBe(false);
  });
  it('maps time-outs to the timeout message and keeps other messages', () => {
    expect(toUserMessage(new Error('user timeout'))).toBe('Request timed out. Please try again');
    expect(toUserMessage(new Error('request timed out'))).toBe(
      'Request timed out. Please try again',
    );
    expect(toUserMessage(new Error('Not Enough Bitcoin'))).toBe('Not Enough Bitcoin');
    expect(toUserMessage(null)).toBe('Unknown error');
  });
});

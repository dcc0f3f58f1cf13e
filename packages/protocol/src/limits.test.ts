import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  avoidDustChange,
  clampSats,
  clampUnitCents,
  maxBorrowCents,
  maxDepositSats,
  maxRepayCents,
  maxWithdrawSats,
  requiredCollateralSats,
  sliderAmount,
  sliderPercent,
} from './limits';
import { ratioAtLeast } from './ratio';
import { sats, unitCents } from './units';

const ONE_BTC = 100_000_000;

describe('maxBorrowCents', () => {
  it('is BTC x price / 1.6: $10,000 of BTC backs 6,250 UNIT', () => {
    expect(maxBorrowCents(10_000_000, 0, 100_000)).toBe(625_000n);
    expect(maxBorrowCents(ONE_BTC, 0, 100_000)).toBe(6_250_000n);
  });
  it('subtracts the existing debt and never goes below 0', () => {
    expect(maxBorrowCents(ONE_BTC, 6_000_000, 100_000)).toBe(250_000n);
    expect(maxBorrowCents(ONE_BTC, 7_000_000, 100_000)).toBe(0n);
  });
  it('is 0 when the price is unknown', () => {
    expect(maxBorrowCents(ONE_BTC, 0, null)).toBe(0n);
  });
  it('never takes the ratio under 160%', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 2_100_000_000_000 }),
        fc.integer({ min: 0, max: 1_000_000_000 }),
        fc.integer({ min: 1, max: 50_000_000 }),
        (btc, debt, priceCents) => {
          const price = priceCents / 100;
          const max = maxBorrowCents(btc, debt, price);
          fc.pre(max > 0n);
          expect(ratioAtLeast(btc, unitCents(BigInt(debt) + max), price, 160)).toBe(true);
          // and one hundredth more would break it: the maximum is tight
          expect(ratioAtLeast(btc, unitCents(BigInt(debt) + max + 1n), price, 160)).toBe(false);
        },
      ),
    );
  });
});

describe('maxWithdrawSats', () => {
  const base = {
    vaultSats: ONE_BTC,
    unitCents: 6_250_000,
    priceUsd: 200_000,
    operationCostSats: 1_000,
  };
  it('is vault - debt x 1.6 / price x 1e8 - cost - minimum vault balance', () => {
    // 62,500 UNIT x 1.6 / $200,000 = 0.5 BTC required
    expect(requiredCollateralSats(6_250_000, 200_000)).toBe(50_000_000n);
    expect(maxWithdrawSats(base)).toBe(100_000_000n - 50_000_000n - 1_000n - 10_000n);
  });
  it('rounds the required collateral up so the ratio is kept', () => {
    // 0.01 UNIT x 1.6 / $3 = 533,333.33 sats -> 533,334
    expect(requiredCollateralSats(1, 3)).toBe(533_334n);
  });
  it('with no debt keeps only cost and minimum vault balance back', () => {
    expect(maxWithdrawSats({ ...base, unitCents: 0 })).toBe(100_000_000n - 1_000n - 10_000n);
  });
  it('is never below 0 and is 0 when the price is unknown', () => {
    expect(maxWithdrawSats({ ...base, priceUsd: 100_000 })).toBe(0n);
    expect(maxWithdrawSats({ ...base, priceUsd: null })).toBe(0n);
    expect(maxWithdrawSats({ ...base, priceUsd: Number.NaN })).toBe(0n);
  });
  it('takes configured minimum vault balance and collateral percent', () => {
    expect(maxWithdrawSats({ ...base, minVaultBalanceSats: 0, collateralPercent: 200 })).toBe(
      100_000_000n - 62_500_000n - 1_000n,
    );
  });
  it('never leaves the ratio under 160%, fee taken from the vault', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 2_100_000_000_000 }),
        fc.integer({ min: 0, max: 1_000_000_000 }),
        fc.integer({ min: 1, max: 50_000_000 }),
        fc.integer({ min: 0, max: 100_000 }),
        (vault, debt, priceCents, cost) => {
          const price = priceCents / 100;
          const max = maxWithdrawSats({
            vaultSats: vault,
            unitCents: debt,
            priceUsd: price,
            operationCostSats: cost,
          });
          fc.pre(max > 0n);
          const remaining = sats(BigInt(vault) - max - BigInt(cost));
          expect(remaining).toBeGreaterThanOrEqual(10_000n);
          expect(ratioAtLeast(remaining, debt, price, 160)).toBe(true);
        },
      ),
    );
  });
});

describe('maxDepositSats', () => {
  it('is wallet sats minus operation cost', () => {
    expect(
      maxDepositSats({ walletSats: 100_000, operationCostSats: 2_000, forCreate: false }),
    ).toBe(98_000n);
  });
  it('for create also leaves the dust limit out', () => {
    expect(maxDepositSats({ walletSats: 100_000, operationCostSats: 2_000, forCreate: true })).toBe(
      97_454n,
    );
  });
  it('is never below 0', () => {
    expect(maxDepositSats({ walletSats: 1_000, operationCostSats: 2_000, forCreate: true })).toBe(
      0n,
    );
  });
});

describe('avoidDustChange', () => {
  it.each([
    [100_000, 100_000, 100_000n], // the maximum leaves no change
    [99_999, 100_000, 99_454n], // 1 sat of change would be dust
    [99_455, 100_000, 99_454n], // 545 sats of change: still dust
    [99_454, 100_000, 99_454n], // 546 sats of change: not dust
    [50_000, 100_000, 50_000n],
    [100, 300, 0n], // no room for non-dust change below the maximum
  ])('%s of a %s maximum becomes %s', (amount, max, expected) => {
    expect(avoidDustChange(amount, max)).toBe(expected);
  });
});

describe('maxRepayCents', () => {
  it('is the smaller of rune balance and debt', () => {
    expect(maxRepayCents({ runeBalanceCents: 500, debtCents: 1_000 })).toBe(500n);
    expect(maxRepayCents({ runeBalanceCents: 5_000, debtCents: 1_000 })).toBe(1_000n);
    expect(maxRepayCents({ runeBalanceCents: 5_000, debtCents: 0 })).toBe(0n);
  });
});

describe('clamping and slider', () => {
  it('clamps an amount into [0, max]', () => {
    expect(clampSats(150, 100)).toBe(100n);
    expect(clampSats(-5, 100)).toBe(0n);
    expect(clampUnitCents(50, 100)).toBe(50n);
  });
  it('turns a slider percentage into a floored share of the maximum and back', () => {
    expect(sliderAmount(999n, 50)).toBe(499n);
    expect(sliderAmount(999n, 100)).toBe(999n);
    expect(sliderAmount(999n, 150)).toBe(999n);
    expect(sliderPercent(499n, 999n)).toBe(49);
    expect(sliderPercent(5n, 0n)).toBe(0);
  });
});

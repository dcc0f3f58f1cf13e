import { describe, expect, it } from 'vitest';
import { applyAction, repossessionClaim, repossessionTaxSats, repossessState } from './vault';

const state = { btcSats: 1_000_000, unitCents: 50_000 };

describe('applyAction', () => {
  it('opens with both BTC and UNIT', () => {
    expect(
      applyAction({ btcSats: 0, unitCents: 0 }, 'open', { btcSats: 200_000, unitCents: 10_000 }),
    ).toEqual({
      btcSats: 200_000n,
      unitCents: 10_000n,
    });
  });
  it('moves BTC on deposit and withdraw, the withdraw fee from the vault', () => {
    expect(applyAction(state, 'deposit', 5_000)).toEqual({
      btcSats: 1_005_000n,
      unitCents: 50_000n,
    });
    expect(applyAction(state, 'withdraw', 5_000, { feeSats: 700 })).toEqual({
      btcSats: 994_300n,
      unitCents: 50_000n,
    });
  });
  it('moves UNIT on borrow and repay', () => {
    expect(applyAction(state, 'borrow', 1_000)).toEqual({
      btcSats: 1_000_000n,
      unitCents: 51_000n,
    });
    expect(applyAction(state, 'repay', 50_000)).toEqual({ btcSats: 1_000_000n, unitCents: 0n });
  });
  it('refuses to go negative or to take negative amounts', () => {
    expect(() => applyAction(state, 'withdraw', 1_000_001)).toThrow(RangeError);
    expect(() => applyAction(state, 'repay', 50_001)).toThrow(RangeError);
    expect(() => applyAction(state, 'deposit', -1)).toThrow(RangeError);
    expect(() => applyAction(state, 'deposit', { btcSats: 1, unitCents: 1 })).toThrow(TypeError);
  });
});

describe('repossess', () => {
  it('taxes 15% of the liquidated collateral, rounded down', () => {
    expect(repossessionTaxSats(100_000_000)).toBe(15_000_000n);
    expect(repossessionTaxSats(10_001)).toBe(1_500n); // 1500.15 rounds down
    expect(repossessionTaxSats(0)).toBe(0n);
  });

  it('gives the claimant the debt and the collateral less the tax', () => {
    const after = repossessState(
      { btcSats: 200_000_000, unitCents: 5_000_000 },
      { btcSats: 10_000_000, unitCents: 700_000 },
    );
    expect(after).toEqual({ btcSats: 208_500_000n, unitCents: 5_700_000n });
  });
});

describe('repossessionClaim', () => {
  it('splits the liquidated collateral into 85% taken and 15% tax, to the sat', () => {
    expect(repossessionClaim(100_000_000)).toEqual({
      takenSats: 85_000_000n,
      taxSats: 15_000_000n,
    });
    // the tax rounds down, so the claimant keeps the odd sats
    const odd = repossessionClaim(10_001);
    expect(odd).toEqual({ takenSats: 8_501n, taxSats: 1_500n });
    expect(odd.takenSats + odd.taxSats).toBe(10_001n);
  });
});

describe('repossessFigures', () => {
  it('takes 85% of the collateral and all the debt, and says whether 160% holds after', async () => {
    const { repossessFigures } = await import('./vault');
    // Own 0.1 BTC / 1,000 UNIT; the claim 0.02 BTC / 1,000 UNIT; at 40,000 USD.
    const figures = repossessFigures(
      { btcSats: 10_000_000, unitCents: 100_000 },
      { btcSats: 2_000_000, unitCents: 100_000 },
      40_000,
    );
    expect(figures.takenSats).toBe(1_700_000n);
    expect(figures.taxSats).toBe(300_000n);
    expect(figures.debtCents).toBe(100_000n);
    expect(figures.after).toEqual({ btcSats: 11_700_000n, unitCents: 200_000n });
    // 0.117 BTC * 40,000 = 4,680 USD over 2,000 UNIT: 234%.
    expect(figures.ratioAfter).toBe(234);
    expect(figures.safe).toBe(true);
    expect(
      repossessFigures(
        { btcSats: 1_000_000, unitCents: 100_000 },
        { btcSats: 2_000_000, unitCents: 100_000 },
        40_000,
      ).safe,
    ).toBe(false);
  });
});

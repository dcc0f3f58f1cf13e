import { describe, expect, it } from 'vitest';
import { applyAction } from './vault';

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

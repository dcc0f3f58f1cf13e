import { describe, expect, it } from 'vitest';
import { alertBand, isAlertingBand } from './alerts';

// 1 BTC backing 50,000 UNIT: the ratio is price / 500 (%).
const vault = { status: 'active', btc_locked: 100_000_000, unit_borrowed: 5_000_000 };

describe('risk alert bands', () => {
  it('follows the SPEC §9 bands at the price', () => {
    expect(alertBand(vault, 100_000)).toBe('healthy'); // 200%
    expect(alertBand(vault, 98_000)).toBe('healthy'); // 196%
    expect(alertBand(vault, 97_500)).toBe('moderate'); // 195%
    expect(alertBand(vault, 80_500)).toBe('moderate'); // 161%
    expect(alertBand(vault, 80_000)).toBe('risky'); // 160%
    expect(alertBand(vault, 67_500)).toBe('risky'); // 135%
  });

  it('reads Risky below 135% until the sweep has liquidated, then Liquidated', () => {
    expect(alertBand(vault, 60_000)).toBe('risky');
    expect(alertBand({ ...vault, status: 'liquidated' }, 60_000)).toBe('liquidated');
    expect(alertBand({ ...vault, status: 'liquidated' }, 200_000)).toBe('liquidated');
  });

  it('has nothing at risk without debt', () => {
    expect(alertBand({ ...vault, unit_borrowed: 0 }, 1)).toBe('no-debt');
  });

  it('alerts on entering Moderate, Risky or liquidation, not on recovering', () => {
    expect(isAlertingBand('moderate')).toBe(true);
    expect(isAlertingBand('risky')).toBe(true);
    expect(isAlertingBand('liquidated')).toBe(true);
    expect(isAlertingBand('healthy')).toBe(false);
    expect(isAlertingBand('no-debt')).toBe(false);
  });
});

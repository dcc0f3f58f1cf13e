import { describe, expect, it } from 'vitest';
import { CONTENT } from './content';
import { networkFeeSats } from './fees';
import {
  isRiskyRatio,
  liquidationDistance,
  outputScriptBytes,
  pendingFigures,
  unitBarReading,
} from './reading';

describe('what the cards and drawers read', () => {
  it('gives the distance to liquidation in dollars and percent of the price now', () => {
    // 1 BTC against 50,000.00 UNIT: liquidated at 67,500.00; at 90,000.00 the price may fall
    // 22,500.00, 25%
    expect(liquidationDistance(100_000_000, 5_000_000, 90_000)).toEqual({
      usdCents: 2_250_000n,
      percent: 25,
    });
    // 1/3 is shown as 33.3, never rounded up to more room than there is
    expect(liquidationDistance(100_000_000, 5_000_000, 101_250)!.percent).toBe(33.3);
    // under the liquidation price: negative
    expect(liquidationDistance(100_000_000, 5_000_000, 60_000)!.usdCents).toBe(-750_000n);
    expect(liquidationDistance(100_000_000, 0, 90_000)).toBeNull();
    expect(liquidationDistance(100_000_000, 5_000_000, null)).toBeNull();
  });

  it('warns for a result in the Risky band only (SPEC §9: 135–160%)', () => {
    expect([134, 135, 160, 161, 300, Infinity].map(isRiskyRatio)).toEqual([
      false,
      true,
      true,
      false,
      false,
      false,
    ]);
  });

  it('reads the UNIT bar: covered, short by how much, or no debt at all (not a full bar)', () => {
    expect(unitBarReading(0, 0)).toEqual({ kind: 'no-debt' });
    expect(unitBarReading(900_000, 0)).toEqual({ kind: 'no-debt' });
    expect(unitBarReading(600_000, 500_000)).toEqual({ kind: 'covered', percent: 100 });
    expect(unitBarReading(100_000, 400_000)).toEqual({
      kind: 'short',
      percent: 25,
      missingCents: 300_000n,
    });
  });

  it('prices a withdraw exactly for the withdrawal address: P2WPKH is 12 vB smaller than P2TR', () => {
    const at = (bytes: number) =>
      networkFeeSats({
        action: 'withdraw',
        paymentInputs: 0,
        feeRate: 10,
        withdrawalScriptBytes: bytes,
      });
    expect(at(34) - at(22)).toBe(120n);
    // without the script the estimate is the larger, P2TR, never short
    expect(networkFeeSats({ action: 'withdraw', paymentInputs: 0, feeRate: 10 })).toBe(at(34));
  });

  it('says where the withdraw fee comes from, in dollars too, and one sentence per gauge band', () => {
    expect(CONTENT.reading.withdraw.feeFromVault('0.00000278', '$0.26')).toBe(
      'Network fee paid from the vault: 0.00000278 BTC ($0.26)',
    );
    const sheet = CONTENT.reading.gaugeBands;
    for (const text of [sheet.risky, sheet.moderate, sheet.healthy, sheet.line])
      expect(text.split(/[.!?](\s|$)/).filter((s) => s.trim()).length).toBe(1);
    expect(sheet.line).toContain('135%');
  });
});

describe('pending figures', () => {
  const rec = (
    timestamp: number,
    confirmed: boolean,
    vault_amount: number,
    amount_borrowed: number,
  ) => ({
    timestamp,
    confirmed,
    vault_amount,
    amount_borrowed,
  });
  it('gives the last confirmed state while a record waits for its block, else nothing', () => {
    expect(pendingFigures([rec(1, true, 100, 50), rec(2, true, 150, 50)])).toBeNull();
    // out of order on purpose: the latest confirmed one counts
    expect(
      pendingFigures([rec(3, false, 90, 50), rec(2, true, 150, 50), rec(1, true, 100, 50)]),
    ).toEqual({ confirmedSats: 150n, confirmedDebtCents: 50n });
  });
});

describe('outputScriptBytes', () => {
  it('reads P2WPKH, P2TR, P2SH and P2PKH from the address (packages/bitcoin checks it decoded)', () => {
    expect(outputScriptBytes('bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq')).toBe(22);
    expect(
      outputScriptBytes('bc1p5d7rjq7g6rdk2yhzks9smlaqtedr4dekq08ge8ztwac72sfr9rusxg3297'),
    ).toBe(34);
    expect(outputScriptBytes('3J98t1WpEZ73CNmQviecrnyiWrnqRhWNLy')).toBe(23);
    expect(outputScriptBytes('1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN2')).toBe(25);
  });
});

import { describe, expect, it } from 'vitest';
import {
  minimumReplacementFee,
  replacementRefusal,
  signalsReplaceability,
  speedUpFeeRate,
} from './replacement';

const tx = (fee: number, vsize: number) => ({ fee: BigInt(fee), vsize });

describe('BIP-125 replacement', () => {
  it('reads the signal from any input below 0xfffffffe', () => {
    expect(signalsReplaceability([0xffffffff, 0xfffffffd])).toBe(true);
    expect(signalsReplaceability([0xffffffff, 0xfffffffe])).toBe(false);
    expect(signalsReplaceability([0])).toBe(true);
  });

  it('refuses a replacement whose fee rate does not beat the original', () => {
    // 200 sats at 200 vB is 1 sat/vB; 400 at 400 vB is the same rate though more fee.
    expect(replacementRefusal(tx(400, 400), [tx(200, 200)], [tx(200, 200)])).toEqual({
      rule: 'feerate',
      conflict: 0,
    });
  });

  it('refuses less absolute fee than everything evicted (rule 3), descendants included', () => {
    const original = tx(200, 200);
    const child = tx(1_000, 150);
    expect(replacementRefusal(tx(600, 200), [original], [original, child])).toEqual({
      rule: 'fee',
      needed: 1_200n,
    });
  });

  it('refuses an increment under the incremental relay fee for its own size (rule 4)', () => {
    // 1 sat/vB over 200 vB: the new fee must be at least 200 + 200.
    expect(replacementRefusal(tx(399, 200), [tx(200, 200)], [tx(200, 200)])).toEqual({
      rule: 'relay',
      needed: 400n,
    });
    expect(replacementRefusal(tx(400, 200), [tx(200, 200)], [tx(200, 200)])).toBeNull();
  });

  it('the least replacement fee meets every rule, and one sat less does not', () => {
    for (const [fee, vsize, newVsize] of [
      [200, 200, 200],
      [1_000, 150, 220],
      [3_333, 333, 150],
    ] as const) {
      const original = tx(fee, vsize);
      const least = minimumReplacementFee(original, newVsize);
      expect(
        replacementRefusal({ fee: least, vsize: newVsize }, [original], [original]),
      ).toBeNull();
      expect(
        replacementRefusal({ fee: least - 1n, vsize: newVsize }, [original], [original]),
      ).not.toBeNull();
    }
  });

  it('offers the fastest tier, or the least rate that replaces when the tier is lower', () => {
    expect(speedUpFeeRate(tx(200, 200), 200, { fastestFee: 12 })).toBe(12);
    // 1 sat/vB sent: the minimum is 2 sat/vB at the same size.
    expect(speedUpFeeRate(tx(200, 200), 200, { fastestFee: 1 })).toBe(2);
    expect(speedUpFeeRate(tx(200, 200), 260, null)).toBe(2);
  });
});

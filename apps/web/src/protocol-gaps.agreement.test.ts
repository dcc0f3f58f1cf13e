import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import * as protocol from '@unit/protocol';
import * as gaps from './protocol-gaps';

// protocol-gaps.ts is to be folded into @unit/protocol; where both define a rule they must agree.
describe('protocol-gaps agrees with @unit/protocol', () => {
  const sats = fc.integer({ min: 1, max: 2_100_000_000_000 });
  const debt = fc.integer({ min: 1, max: 1_000_000_000_000 });
  const priceCents = fc.integer({ min: 100, max: 100_000_000 });

  it('on the collateral ratio of a vault with debt', () => {
    fc.assert(
      fc.property(sats, debt, priceCents, (s, d, p) => {
        expect(gaps.collateralRatio(BigInt(s), BigInt(d), BigInt(p))).toBe(
          protocol.collateralRatio(s, d, p / 100),
        );
      }),
    );
  });

  // Vaults hold at least the minimum balance, which keeps the protocol's Number result exact.
  it('on the liquidation price', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 10_000, max: 2_100_000_000_000 }),
        fc.integer({ min: 1, max: 100_000_000_000 }),
        (s, d) => {
          expect(gaps.liquidationPriceCents(BigInt(s), BigInt(d))).toBe(
            BigInt(protocol.liquidationThresholdCents(s, d)),
          );
        },
      ),
    );
  });

  it('on the health band and its display', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 1_000 }), (r) => {
        expect(gaps.healthBand(r)?.toLowerCase() ?? null).toBe(protocol.healthBand(r));
        expect(gaps.formatHealth(r)).toBe(protocol.formatHealth(r));
      }),
    );
  });
});

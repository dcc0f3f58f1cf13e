import { describe, expect, it } from 'vitest';
import { cardReadings } from './card-readings';
import { READING_COPY } from './reading-copy';

// 1 BTC backing 50,000.00 UNIT, confirmed; a deposit of 0.5 BTC waits for its block. At $95,000.
const opened = {
  timestamp: 100,
  confirmed: true,
  action: 'o' as const,
  vault_amount: 100_000_000,
  amount_borrowed: 5_000_000,
};
const deposit = {
  timestamp: 200,
  confirmed: false,
  action: 'd' as const,
  vault_amount: 150_000_000,
  amount_borrowed: 5_000_000,
};
const vault = { sats: 150_000_000, debtCents: 5_000_000 };

describe('cardReadings', () => {
  it('reads every confirmed figure from the confirmed state, the distance too', () => {
    const { confirmed, pending } = cardReadings([opened, deposit], vault, 95_000);
    expect(confirmed).toEqual({
      sats: 100_000_000n,
      debtCents: 5_000_000n,
      ratio: 190,
      liquidationCents: 6_750_000n,
      // measured from the confirmed $67,500.00, not the pending $45,000.00
      distance: { usdCents: 2_750_000n, percent: 28.9 },
    });
    expect(pending).toEqual({
      action: 'd',
      state: {
        sats: 150_000_000n,
        debtCents: 5_000_000n,
        ratio: 285,
        liquidationCents: 4_500_000n,
        distance: { usdCents: 5_000_000n, percent: 52.6 },
      },
    });
  });

  it('has one state once the block confirms it, or when nothing waits', () => {
    const mined = { ...deposit, confirmed: true };
    const { confirmed, pending } = cardReadings([opened, mined], vault, 95_000);
    expect(pending).toBeNull();
    expect(confirmed.sats).toBe(150_000_000n);
    expect(confirmed.ratio).toBe(285);
    expect(cardReadings([], vault, 95_000).pending).toBeNull();
  });

  it('names a pending withdrawal, and a state without debt has no liquidation figures', () => {
    const withdraw = { ...deposit, action: 'w' as const, vault_amount: 80_000_000 };
    const { pending } = cardReadings([opened, withdraw], { ...vault, sats: 80_000_000 }, 95_000);
    expect(pending?.action).toBe('w');
    expect(READING_COPY.pending.after(pending!.action, '0.8 BTC')).toBe(
      'After the pending withdrawal: 0.8 BTC',
    );
    const repaid = {
      ...deposit,
      action: 'r' as const,
      vault_amount: 100_000_000,
      amount_borrowed: 0,
    };
    const after = cardReadings([opened, repaid], { sats: 100_000_000, debtCents: 0 }, 95_000);
    expect(after.pending?.state).toMatchObject({
      ratio: Infinity,
      liquidationCents: null,
      distance: null,
    });
  });
});

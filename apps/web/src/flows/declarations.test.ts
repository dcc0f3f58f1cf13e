import { describe, expect, it } from 'vitest';
import { DEFAULT_CONFIG_CONSTANTS, sats, unitCents } from '@unit/protocol';
import { FLOWS, NOTICES, type FlowAction, type MaxContext } from './declarations';

const ACTIONS = Object.keys(FLOWS) as FlowAction[];

// A vault of 1 BTC owing 50,000 UNIT at 95,000 USD, a wallet of 0.5 BTC and 1,000 UNIT.
const ctx: MaxContext = {
  walletSats: sats(50_000_000),
  vaultSats: sats(100_000_000),
  debtCents: unitCents(5_000_000),
  runeCents: unitCents(100_000),
  priceUsd: 95_000,
  costSats: sats(10_000),
  refinedSats: null,
  constants: DEFAULT_CONFIG_CONSTANTS,
};

describe('flow declarations (the drawer reads them, never the action name)', () => {
  it('gives every amounts form a field and every flow its own tracker and success steps', () => {
    for (const action of ACTIONS) {
      const decl = FLOWS[action];
      expect(decl.action).toBe(action);
      if (decl.form.kind === 'amounts') expect(decl.form.btc ?? decl.form.unit).toBeDefined();
      const kinds = decl.steps.map((s) => s.kind);
      expect(kinds.slice(-2)).toEqual(['tracker', 'success']);
      // A confirmation step follows the form it confirms.
      const confirm = kinds.indexOf('confirm');
      if (confirm >= 0) expect(kinds[confirm - 1]).toBe('form');
    }
  });

  it('leaves a pending entry of its own type, except the speed-up, which follows its original', () => {
    for (const action of ACTIONS) {
      const { pendingType } = FLOWS[action];
      expect(pendingType === null ? 'speedup' : pendingType).toBe(action);
    }
  });

  it('tells Telegram of the action a speed-up replaced, and retries only the opening (SPEC §7)', () => {
    const target = { kind: 'speedup' as const, txid: 'ab'.repeat(32), action: 'repay' as const };
    expect(FLOWS.speedup.noticeAction(target)).toBe('repay');
    expect(FLOWS.create.noticeAction(undefined)).toBe('open');
    expect(NOTICES.open.retries).toBeGreaterThan(0);
    const others = Object.entries(NOTICES).filter(([action]) => action !== 'open');
    expect(others.every(([, notice]) => notice.retries === 0)).toBe(true);
  });

  it('bounds each field by the protocol rule of its action (SPEC §5)', () => {
    // deposit: the wallet less the cost; opening also keeps the dust limit back
    expect(FLOWS.deposit.form.btc!.max(ctx)).toBe(49_990_000n);
    expect(FLOWS.create.form.btc!.max(ctx)).toBe(
      49_990_000n - BigInt(DEFAULT_CONFIG_CONSTANTS.dustLimitSats),
    );
    // Max once refined from the UTXOs is the maximum
    expect(FLOWS.deposit.form.btc!.max({ ...ctx, refinedSats: sats(123) })).toBe(123n);
    // repay: the smaller of the UNIT held and the debt
    expect(FLOWS.repay.form.unit!.max({ ...ctx, depositSats: sats(0) })).toBe(100_000n);
    // the opening's borrow is backed by what it deposits, nothing else
    expect(FLOWS.create.form.unit!.max({ ...ctx, depositSats: sats(0) })).toBe(0n);
    expect(FLOWS.borrow.form.unit!.max({ ...ctx, depositSats: sats(0) })).toBeGreaterThan(0n);
  });
});

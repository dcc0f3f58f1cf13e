import { describe, expect, it } from 'vitest';
import { parsePendingList, sats, unitCents } from '@unit/protocol';
import { pendingEntry, previewAfter } from './preview';

// 1 BTC backing 50,000.00 UNIT, priced at 95,000 USD: 190% (Moderate).
const before = { btcSats: sats(100_000_000), unitCents: unitCents(5_000_000) };
const amounts = (btc: number, unit: number, fee = 0) => ({
  sats: sats(btc),
  cents: unitCents(unit),
  feeSats: sats(fee),
});

describe('previewAfter', () => {
  it('takes the withdraw fee out of the vault', () => {
    expect(previewAfter(before, 'withdraw', amounts(10_000_000, 0, 1_000))).toEqual({
      btcSats: 89_999_000n,
      unitCents: 5_000_000n,
    });
  });
  it('opens a vault with both amounts', () => {
    const empty = { btcSats: sats(0), unitCents: unitCents(0) };
    expect(previewAfter(empty, 'create', amounts(1_000_000, 30_000))).toEqual({
      btcSats: 1_000_000n,
      unitCents: 30_000n,
    });
  });
  it('has no after state for more than the vault holds or owes', () => {
    expect(previewAfter(before, 'withdraw', amounts(100_000_001, 0))).toBeNull();
    expect(previewAfter(before, 'repay', amounts(0, 5_000_001))).toBeNull();
  });
});

describe('pendingEntry', () => {
  const ids = { txid: 'a'.repeat(64), vaultTxid: 'b'.repeat(64) };
  it('records a repay of the whole debt with health before and after, valid for storage', () => {
    const after = previewAfter(before, 'repay', amounts(0, 5_000_000));
    const entry = pendingEntry(
      'repay',
      { name: '', sats: 0n, cents: 5_000_000n, feeRate: 1 },
      { before, after, priceUsd: 95_000 },
      ids,
      1_700_000_000,
    );
    expect(entry).toMatchObject({
      type: 'repay',
      amount: '5000000',
      amountUnit: 'UNIT',
      status: 'In Progress',
      vault_txid: 'b'.repeat(64),
      btcInVault: '100000000',
      unitInVault: '0',
      healthFactorBefore: 190,
      // no debt left: an infinite ratio, stored as null and shown N/A
      healthFactorAfter: null,
      healthStatusBefore: { text: 'Moderate', colour: 'yellow' },
      healthStatusAfter: { text: 'N/A', colour: 'grey' },
      isFullRepay: true,
    });
    expect(parsePendingList(JSON.stringify([entry]))).toEqual([entry]);
  });
  it('records a deposit in sats', () => {
    const entry = pendingEntry(
      'deposit',
      { name: '', sats: 10_000_000n, cents: 0n, feeRate: 1 },
      { before, after: previewAfter(before, 'deposit', amounts(10_000_000, 0)), priceUsd: 95_000 },
      ids,
      1_700_000_000,
    );
    expect(entry).toMatchObject({ amount: '10000000', amountUnit: 'BTC', isFullRepay: false });
  });
});

import { describe, expect, it } from 'vitest';
import {
  PENDING_STATUS_LABELS,
  completePending,
  hasPendingInProgress,
  parsePendingList,
  pendingStorageKey,
  reconcilePending,
  type PendingTransaction,
} from './pending';

const pending = (transactionId: string, vault_txid: string | null): PendingTransaction => ({
  date: 1_700_000_000,
  type: 'borrow',
  amount: '1000',
  amountUnit: 'UNIT',
  status: 'In Progress',
  transactionId,
  vault_txid,
  btcInVault: '100000',
  unitInVault: '5000',
  healthFactorBefore: 200,
  healthFactorAfter: 180,
  healthStatusBefore: { text: 'Healthy', colour: 'green' },
  healthStatusAfter: { text: 'Moderate', colour: 'yellow' },
  isFullRepay: false,
});

describe('pending transactions', () => {
  it('are keyed by the first 6 characters of the address', () => {
    expect(pendingStorageKey('tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx')).toBe(
      'unit-pending-tb1qw5',
    );
    expect(pendingStorageKey('tb1qw5zzzz')).toBe(pendingStorageKey('tb1qw5yyyy'));
  });
  it('display In Progress as Finalizing...', () => {
    expect(PENDING_STATUS_LABELS['In Progress']).toBe('Finalizing...');
    expect(PENDING_STATUS_LABELS.Completed).toBe('Completed');
  });
  it('complete once history holds the transaction id or the vault transaction id', () => {
    const list = [pending('a', null), pending('b', 'vb'), pending('c', 'vc')];
    const result = reconcilePending(list, [{ transaction_id: 'a' }, { transaction_id: 'vb' }]);
    expect(result.map((p) => p.status)).toEqual(['Completed', 'Completed', 'In Progress']);
    expect(hasPendingInProgress(result)).toBe(true);
    expect(hasPendingInProgress(completePending(result, 'vc'))).toBe(false);
  });
  it("count a transaction the vault's history holds unconfirmed, sent from anywhere", () => {
    // a repossess (not a drawer flow) or an action from another device: no local entry
    const now = 1_800_000_000;
    const at = (ago: number, confirmed?: boolean) => ({ timestamp: now - ago, confirmed });
    expect(hasPendingInProgress([], [at(600, true), at(60, false)], now)).toBe(true);
    expect(hasPendingInProgress([], [at(600, true)], now)).toBe(false);
    // records without the flag (older servers) are taken as confirmed
    expect(hasPendingInProgress([], [at(60)], now)).toBe(false);
    // an hour unconfirmed: perhaps dropped, it no longer holds the actions back
    expect(hasPendingInProgress([], [at(3_599, false)], now)).toBe(true);
    expect(hasPendingInProgress([], [at(3_600, false)], now)).toBe(false);
  });
  it('drop malformed entries read back from storage', () => {
    const good = pending('a', null);
    const json = JSON.stringify([good, { ...good, amount: 1.5 }, { nonsense: true }]);
    expect(parsePendingList(json)).toEqual([good]);
    expect(parsePendingList('not json')).toEqual([]);
    expect(parsePendingList(null)).toEqual([]);
    expect(parsePendingList('{}')).toEqual([]);
  });
});

describe('followReplacement', () => {
  it('points the sped-up entry at the replacement, which alone then completes it', async () => {
    const { followReplacement, reconcilePending } = await import('./pending');
    const entry = {
      date: 1,
      type: 'deposit' as const,
      amount: '1000',
      amountUnit: 'BTC' as const,
      status: 'In Progress' as const,
      transactionId: 'old',
      vault_txid: 'old',
      btcInVault: '1000',
      unitInVault: '0',
      healthFactorBefore: null,
      healthFactorAfter: null,
      healthStatusBefore: null,
      healthStatusAfter: null,
      isFullRepay: false,
    };
    const other = { ...entry, transactionId: 'other', vault_txid: 'other' };
    const followed = followReplacement([entry, other], 'old', 'new');
    expect(followed.map((p) => p.transactionId)).toEqual(['new', 'other']);
    expect(reconcilePending(followed, [{ transaction_id: 'old' }])[0]!.status).toBe('In Progress');
    expect(reconcilePending(followed, [{ transaction_id: 'new' }])[0]!.status).toBe('Completed');
  });
});

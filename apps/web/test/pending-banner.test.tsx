import { describe, expect, it, vi } from 'vitest';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { parsePendingList, pendingStorageKey, type PendingTransaction } from '@unit/protocol';
import { FAKE_ACCOUNT, fakeWallet } from './fake-wallet';
import { withNetworkEdge } from './network-edge';
import { renderApp } from './render-app';

vi.mock('../src/wallet', async () => (await import('./fake-wallet')).walletModule);

withNetworkEdge();

const KEY = pendingStorageKey(FAKE_ACCOUNT.satsAddress);

const pendingDeposit = (ageSeconds: number): PendingTransaction => ({
  date: Math.floor(Date.now() / 1000) - ageSeconds,
  type: 'deposit',
  amount: '100000',
  amountUnit: 'BTC',
  status: 'In Progress',
  transactionId: '4'.repeat(64),
  vault_txid: null,
  btcInVault: '100000',
  unitInVault: '0',
  healthFactorBefore: null,
  healthFactorAfter: null,
  healthStatusBefore: null,
  healthStatusAfter: null,
  isFullRepay: false,
});

describe('a pending transaction that never confirms', () => {
  it('offers no way out while it is younger than an hour', async () => {
    localStorage.setItem(KEY, JSON.stringify([pendingDeposit(30 * 60)]));
    fakeWallet.connectAs();
    renderApp('/');
    expect(
      await screen.findByText(
        'Your deposit of 0.001 BTC is waiting for a block: usually within a minute.',
      ),
    ).toBeInTheDocument();
    expect(screen.getByText('Finalizing...')).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Forget this transaction' })).toBeNull();
  });

  it('can be forgotten after an hour, once the warning is confirmed', async () => {
    localStorage.setItem(KEY, JSON.stringify([pendingDeposit(2 * 3600)]));
    fakeWallet.connectAs();
    const user = userEvent.setup();
    renderApp('/');
    await user.click(await screen.findByRole('button', { name: 'Forget this transaction' }));
    const dialog = await screen.findByRole('dialog', { name: 'Forget this transaction?' });
    expect(dialog).toHaveTextContent('Check the explorer link first');

    // Keep waiting changes nothing.
    await user.click(within(dialog).getByRole('button', { name: 'Keep waiting' }));
    expect(parsePendingList(localStorage.getItem(KEY))).toHaveLength(1);

    await user.click(screen.getByRole('button', { name: 'Forget this transaction' }));
    await user.click(
      within(await screen.findByRole('dialog', { name: 'Forget this transaction?' })).getByRole(
        'button',
        { name: 'Forget it' },
      ),
    );
    await waitFor(() => expect(screen.queryByText(/Finalizing\.\.\./)).toBeNull());
    expect(parsePendingList(localStorage.getItem(KEY))).toEqual([]);
    // The actions it was blocking are back.
    await waitFor(() => expect(screen.getByRole('button', { name: 'Deposit' })).toBeEnabled());
  });
});

import { describe, expect, it, vi } from 'vitest';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { http, HttpResponse } from 'msw';
import { parsePendingList, pendingStorageKey, type PendingTransaction } from '@unit/protocol';
import { FAKE_ACCOUNT, fakeWallet } from './fake-wallet';
import { TELEGRAM_NOT_CONFIGURED } from '../src/auth/EnableTelegram';
import { config } from './fixtures';
import { withNetworkEdge } from './network-edge';
import { server } from './server';
import { renderApp } from './render-app';

vi.mock('../src/wallet', async () => (await import('./fake-wallet')).walletModule);
vi.mock('../src/wallet/controls', async () => (await import('./fake-wallet')).walletModule);

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

describe('the pending banner (one compact layout)', () => {
  const entry = (type: PendingTransaction['type'], amount: string, unit: 'BTC' | 'UNIT') => ({
    ...pendingDeposit(60),
    type,
    amount,
    amountUnit: unit,
  });

  it.each([
    ['deposit', '100000', 'BTC', 'BTC Deposit Submitted'],
    ['withdraw', '100000', 'BTC', 'BTC Withdrawal Submitted'],
    ['borrow', '2500', 'UNIT', 'Vault Borrow Submitted!'],
    ['repay', '2500', 'UNIT', 'UNIT Repayment Submitted'],
  ] as const)('has the same parts for a %s', async (type, amount, unit, title) => {
    localStorage.setItem(KEY, JSON.stringify([entry(type, amount, unit)]));
    fakeWallet.connectAs();
    renderApp('/');
    const banner = (await screen.findByText(title, { selector: 'strong' })).closest('.banner')!;
    // a mark, a title line with the status badge, one line of detail, one row of actions
    expect(banner.querySelector('.banner__mark .spinner')).not.toBeNull();
    expect(within(banner as HTMLElement).getByText('Finalizing...')).toBeInTheDocument();
    expect(banner.querySelectorAll('.banner__text')).toHaveLength(1);
    expect(
      within(banner as HTMLElement).getByRole('link', { name: /^View transaction/ }),
    ).toBeInTheDocument();
    // the bot is configured (fixtures): the offer is there, once
    expect(within(banner as HTMLElement).getAllByRole('button', { name: /Telegram/ })).toHaveLength(
      1,
    );
  });

  it('says nothing about Telegram when the server has no bot', async () => {
    server.use(http.get('*/api/config', () => HttpResponse.json({ ...config, telegramBot: null })));
    localStorage.setItem(KEY, JSON.stringify([pendingDeposit(60)]));
    fakeWallet.connectAs();
    renderApp('/');
    const banner = (
      await screen.findByText('BTC Deposit Submitted', { selector: 'strong' })
    ).closest('.banner') as HTMLElement;
    expect(banner).not.toHaveTextContent(/Telegram/);
    expect(screen.queryAllByText(TELEGRAM_NOT_CONFIGURED).length).toBeLessThanOrEqual(1);
  });
});

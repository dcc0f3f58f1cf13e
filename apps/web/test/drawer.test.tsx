import { describe, expect, it, vi } from 'vitest';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { http, HttpResponse } from 'msw';
import { parsePendingList, pendingStorageKey, type UserDto } from '@unit/protocol';
import { fakeWallet } from './fake-wallet';
import { history, NOW_S, record } from './fixtures';
import { withNetworkEdge } from './network-edge';
import { renderApp } from './render-app';
import { historyPages, scenario, server } from './server';
import type { ExecuteFlow } from '../src/flows/flow-types';

vi.mock('../src/wallet', async () => (await import('./fake-wallet')).walletModule);
vi.mock('../src/wallet/controls', async () => (await import('./fake-wallet')).walletModule);

withNetworkEdge();

async function openDrawer(url: string, execute?: ExecuteFlow) {
  const utils = renderApp(url, { execute });
  const drawer = await screen.findByRole('dialog', {}, { timeout: 5_000 });
  return { ...utils, drawer };
}

describe('create drawer', () => {
  it('refuses a name over 20 characters with the counter and message, and Enter advances a valid one', async () => {
    const user = userEvent.setup();
    const { drawer } = await openDrawer('/?action=create-vault');
    const name = within(drawer).getByLabelText('Vault name');
    await user.type(name, 'a'.repeat(21));
    expect(within(drawer).getByText('Use a maximum of 20 characters.')).toBeInTheDocument();
    expect(within(drawer).getByText('21/20')).toBeInTheDocument();
    expect(within(drawer).getByRole('button', { name: 'Continue' })).toBeDisabled();
    await user.clear(name);
    await user.type(name, 'Mine{Enter}');
    // no wallet: step 2 asks to connect one
    expect(
      await within(drawer).findByRole('heading', { name: 'Connect Wallet' }),
    ).toBeInTheDocument();
    expect(
      within(drawer).getByText('Select your preffered wallet to open a vault.'),
    ).toBeInTheDocument();
    await user.click(within(drawer).getByRole('button', { name: 'Back' }));
    expect(within(drawer).getByLabelText('Vault name')).toHaveValue('Mine');
  });

  it('goes back from the tracker to the confirmation step after a failure', async () => {
    scenario.vault = null;
    fakeWallet.connectAs();
    const user = userEvent.setup();
    const execute: ExecuteFlow = async () => {
      throw new Error('Vault Open failed');
    };
    const { drawer } = await openDrawer('/?action=create-vault', execute);
    await user.type(within(drawer).getByLabelText('Vault name'), 'Mine');
    await user.click(within(drawer).getByRole('button', { name: 'Continue' }));
    await user.type(await within(drawer).findByLabelText('Deposit BTC'), '0.1');
    await user.type(within(drawer).getByLabelText('Borrow UNIT'), '100');
    await user.click(within(drawer).getByRole('button', { name: 'Preview' }));
    await user.click(await screen.findByRole('button', { name: 'Confirm' }));
    const dialog = await screen.findByRole('dialog', {}, { timeout: 5_000 });
    expect(await within(dialog).findByRole('alert')).toHaveTextContent('Vault Open failed');
    await user.click(within(dialog).getByRole('button', { name: 'Back' }));
    expect(await screen.findByRole('button', { name: 'Confirm' })).toBeInTheDocument();
  });
});

describe('action drawers', () => {
  it('says Not Enough Bitcoin above the wallet balance and clamps to the maximum below it', async () => {
    fakeWallet.connectAs();
    const user = userEvent.setup();
    const { drawer } = await openDrawer('/?action=deposit');
    await waitFor(() => expect(within(drawer).getByText(/^Available: 0\.4/)).toBeInTheDocument());
    const input = within(drawer).getByLabelText('Deposit amount');
    await user.type(input, '1');
    expect(within(drawer).getByRole('alert')).toHaveTextContent('Not Enough Bitcoin');
    expect(within(drawer).getByRole('button', { name: 'Deposit' })).toBeDisabled();
    await user.clear(input);
    await user.type(input, '0.5');
    // 0.5 BTC is the whole wallet: clamped to the maximum (balance minus the operation cost)
    expect((input as HTMLInputElement).value).toMatch(/^0\.49/);
    expect(within(drawer).queryByRole('alert')).not.toBeInTheDocument();
  });

  it('says the lowest accepted amount under the minimum', async () => {
    fakeWallet.connectAs();
    const user = userEvent.setup();
    const { drawer } = await openDrawer('/?action=deposit');
    await user.type(within(drawer).getByLabelText('Deposit amount'), '0.00001');
    expect(within(drawer).getByRole('alert')).toHaveTextContent(
      'The lowest accepted amount is 0.00005 BTC',
    );
  });

  it("says the UNIT postage the action pays: the referral level's with the UNIT, the default back", async () => {
    fakeWallet.connectAs();
    const first = await openDrawer('/?action=borrow');
    expect(
      await within(first.drawer).findByText(
        'UNIT postage: 10,000 sats ($9.50). It arrives with your UNIT in your runes address and stays yours.',
      ),
    ).toBeInTheDocument();
    first.unmount();

    server.use(
      http.get('*/api/users', ({ request }) =>
        HttpResponse.json([
          {
            address: new URL(request.url).searchParams.get('address')!,
            discord_id: null,
            twitter_id: null,
            telegram_id: null,
            referral_code: 'abc123def0',
            referred_by: null,
            referrals: 1,
            level: 'level_one',
            level_title: 'Nebula',
            postage_sats: 12_500,
          } satisfies UserDto,
        ]),
      ),
    );
    const nebula = await openDrawer('/?action=borrow');
    expect(
      await within(nebula.drawer).findByText(
        'UNIT postage (Nebula): 12,500 sats ($11.87). It arrives with your UNIT in your runes address and stays yours.',
      ),
    ).toBeInTheDocument();
    nebula.unmount();

    const repay = await openDrawer('/?action=repay');
    expect(
      await within(repay.drawer).findByText(
        'UNIT postage: 10,000 sats ($9.50). It goes to the treasury with the UNIT you repay; the postage of the UNIT you keep stays yours.',
      ),
    ).toBeInTheDocument();
  });

  it('clamps a repay to the UNIT in the wallet with the maximum message', async () => {
    fakeWallet.connectAs();
    const user = userEvent.setup();
    const { drawer } = await openDrawer('/?action=repay');
    await waitFor(() =>
      expect(within(drawer).getByText('Up to 10,000.00 UNIT')).toBeInTheDocument(),
    );
    const input = within(drawer).getByLabelText('Repay amount');
    await user.type(input, '20000');
    expect(input).toHaveValue('10,000.00');
    // SPEC §5: the message shows first, then the clamp; a keystroke within the maximum clears it.
    expect(
      within(drawer).getByText('Maximum value cannot exceed 10,000.00 UNIT'),
    ).toBeInTheDocument();
    await user.clear(input);
    await user.type(input, '5');
    expect(within(drawer).queryByText(/Maximum value cannot exceed/)).not.toBeInTheDocument();
  });

  it('runs a deposit through processing to the success title and stores it as pending', async () => {
    fakeWallet.connectAs();
    const user = userEvent.setup();
    const execute: ExecuteFlow = async (_a, _i, onProgress) => {
      onProgress(1);
      onProgress(2);
      return { txid: '2'.repeat(64), vaultTxid: '2'.repeat(64) };
    };
    const { drawer, queryClient } = await openDrawer('/?action=deposit', execute);
    await waitFor(() => expect(within(drawer).getByText(/^Available: 0\.4/)).toBeInTheDocument());
    await user.type(within(drawer).getByLabelText('Deposit amount'), '0.1');
    await user.click(within(drawer).getByRole('button', { name: 'Deposit' }));
    expect(
      await screen.findByText('BTC Deposit Submitted', { selector: 'strong' }),
    ).toBeInTheDocument();
    // stored under the wallet's first 6 address characters, valid against the protocol schema
    const stored = parsePendingList(localStorage.getItem(pendingStorageKey('tb1qfa')));
    expect(stored).toEqual([
      expect.objectContaining({
        amount: '10000000',
        amountUnit: 'BTC',
        status: 'In Progress',
        type: 'deposit',
      }),
    ]);
    expect(
      await screen.findByText(
        'Your deposit of 0.1 BTC is waiting for a block: usually within a minute.',
      ),
    ).toBeInTheDocument();
    // Submitted is not yet done: the banner is informational until a block confirms it.
    const banner = () => screen.getByText('BTC Deposit Submitted', { selector: 'strong' });
    expect(banner().closest('.banner')).toHaveClass('banner--info');

    // A block confirms it: the vault's history now holds the transaction (SPEC §4).
    server.use(
      http.get(
        '*/api/vaults/:id/history',
        historyPages([
          ...history,
          {
            ...record(8, NOW_S, 'd', 110_000_000, 50_000_000, 10_000_000, 0),
            transaction_id: '2'.repeat(64),
          },
        ]),
      ),
    );
    await queryClient.invalidateQueries({ queryKey: ['vault-history'] });
    // Finished, it says so in its own words (not 'BTC Deposit Submitted · Completed').
    const done = await screen.findByText('Your deposit of 0.1 BTC is confirmed.', {
      selector: 'strong',
    });
    expect(done.closest('.banner')).toHaveClass('banner--success');
    expect(screen.queryByText('BTC Deposit Submitted')).toBeNull();
    expect(screen.getByText('Completed', { selector: '.banner span' })).toBeInTheDocument();
    expect(parsePendingList(localStorage.getItem(pendingStorageKey('tb1qfa')))[0]?.status).toBe(
      'Completed',
    );
  });
});

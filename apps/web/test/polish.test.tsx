// Noise and rough edges: the devnet price from the wallet menu, the keyboard in drawers,
// the referral link and the inviter.
import { describe, expect, it, vi } from 'vitest';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { http, HttpResponse } from 'msw';
import { FAKE_ACCOUNT, fakeWallet } from './fake-wallet';
import { config, price } from './fixtures';
import { withNetworkEdge } from './network-edge';
import { renderApp } from './render-app';
import { scenario, server } from './server';

vi.mock('../src/wallet', async () => (await import('./fake-wallet')).walletModule);
vi.mock('../src/wallet/controls', async () => (await import('./fake-wallet')).walletModule);

withNetworkEdge();

const openWalletMenu = async (user: ReturnType<typeof userEvent.setup>) => {
  const a = FAKE_ACCOUNT.satsAddress;
  await user.click(
    await screen.findByRole('button', { name: `Wallet ${a.slice(0, 6)}…${a.slice(-4)}` }),
  );
  return screen.findByRole('dialog', {}, { timeout: 5_000 });
};

describe('the devnet price in the wallet menu', () => {
  it('sets a typed price and moves it by a step, through POST /api/devnet/price', async () => {
    const posted: unknown[] = [];
    server.use(
      http.post('*/api/devnet/price', async ({ request }) => {
        const body = (await request.json()) as { usd: number };
        posted.push(body);
        return HttpResponse.json({ USD: body.usd, time: price.time });
      }),
    );
    scenario.vault = null;
    fakeWallet.connectAs();
    const user = userEvent.setup();
    renderApp('/');
    const menu = await openWalletMenu(user);
    const form = within(menu).getByRole('form', { name: 'Devnet price' });
    await user.type(within(form).getByLabelText('New BTC price in USD'), '60,000');
    await user.click(within(form).getByRole('button', { name: 'Set price' }));
    expect(await within(form).findByText('BTC price set to $60,000.00.')).toBeInTheDocument();
    expect(posted).toEqual([{ usd: 60_000 }]);
    // the header shows it at once
    await waitFor(() =>
      expect(screen.getAllByText('$60,000.00', { exact: false }).length).toBeGreaterThan(1),
    );
    await user.click(
      within(screen.getByRole('form', { name: 'Devnet price' })).getByRole('button', {
        name: '-10%',
      }),
    );
    await waitFor(() => expect(posted).toEqual([{ usd: 60_000 }, { usd: 54_000 }]));
  });

  it('is not there off the devnet', async () => {
    server.use(http.get('*/api/config', () => HttpResponse.json({ ...config, network: 'signet' })));
    fakeWallet.connectAs();
    const user = userEvent.setup();
    renderApp('/');
    const menu = await openWalletMenu(user);
    expect(within(menu).queryByRole('form', { name: 'Devnet price' })).toBeNull();
  });
});

describe('the keyboard in a drawer', () => {
  it('opens Deposit with Enter on its amount field, so typing goes there', async () => {
    fakeWallet.connectAs();
    const user = userEvent.setup();
    renderApp('/');
    const deposit = await screen.findByRole('button', { name: 'Deposit' }, { timeout: 5_000 });
    await waitFor(() => expect(deposit).toBeEnabled(), { timeout: 5_000 });
    deposit.focus();
    await user.keyboard('{Enter}');
    const drawer = await screen.findByRole('dialog', {}, { timeout: 5_000 });
    const amount = within(drawer).getByLabelText('Deposit amount');
    await waitFor(() => expect(amount).toHaveFocus());
    await user.keyboard('0.01');
    expect(amount).toHaveValue('0.01');
  });
});

describe('missions: the inviter and the badges', () => {
  const user = {
    address: FAKE_ACCOUNT.satsAddress,
    discord_id: null,
    twitter_id: null,
    telegram_id: null,
    referral_code: 'abc123def0',
    referred_by: 'tb1qinviter000000000000000000000000xyz789',
    referrals: 0,
    level: null,
    level_title: null,
    postage_sats: null,
  };

  it('tells a referred user who invited them, and draws a mark for each badge', async () => {
    server.use(
      // Signed in: badges and progress are shown to their owner only.
      http.get('*/api/auth/session', () => HttpResponse.json({ address: user.address })),
      http.get('*/api/users', () => HttpResponse.json([user])),
      http.get('*/api/users/:address', () => HttpResponse.json(user)),
      http.get('*/api/users/:address/community', () =>
        HttpResponse.json({
          roles: [{ id: 'genesis', title: 'Genesis', how: 'Open a vault', earned: true }],
          badges: [{ id: 'boost', title: 'Boost', how: 'Borrow twice', earned: false }],
        }),
      ),
    );
    fakeWallet.connectAs();
    renderApp('/missions');
    const note = await screen.findByText(/You were invited by/, undefined, { timeout: 8_000 });
    expect(note).toHaveTextContent('You were invited by tb1qinvi…xyz789.');
    const badges = await screen.findByRole('region', { name: 'Badges' });
    const boost = within(badges).getByText('Boost').closest('li')!;
    expect(boost.querySelector('.award__icon svg')).not.toBeNull();
    expect(boost).toHaveTextContent('Not yet');
  });

  it('says the code of the link a new user came with, before they register', async () => {
    fakeWallet.connectAs();
    renderApp('/missions?ref=f00dcafe12');
    expect(
      await screen.findByText(/You were invited with referral code/, undefined, { timeout: 8_000 }),
    ).toHaveTextContent('f00dcafe12');
  });
});

describe('create step 2 without a wallet', () => {
  it('lists the wallets inside the step, and connecting goes on to the amounts', async () => {
    scenario.vault = null;
    fakeWallet.reset();
    const user = userEvent.setup();
    renderApp('/?action=create-vault');
    const drawer = await screen.findByRole('dialog', {}, { timeout: 5_000 });
    await user.type(within(drawer).getByLabelText('Vault name'), 'Mine{Enter}');
    const wallets = await within(drawer).findByRole('list', { name: 'Wallets' });
    // one dialog: no picker opened over the drawer
    expect(screen.getAllByRole('dialog')).toHaveLength(1);
    await user.click(within(wallets).getByRole('button', { name: 'Connect Devnet wallet' }));
    expect(await within(drawer).findByLabelText('Deposit BTC')).toBeInTheDocument();
  });
});

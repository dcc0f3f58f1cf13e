// A wallet whose first sats are still in the mempool (a new devnet wallet paid by the faucet): the
// page says the funds are arriving, and neither the create drawer nor Deposit claims it has none.
import { describe, expect, it, vi } from 'vitest';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { fakeWallet } from './fake-wallet';
import { withNetworkEdge } from './network-edge';
import { renderApp } from './render-app';
import { scenario } from './server';

vi.mock('../src/wallet', async () => (await import('./fake-wallet')).walletModule);
vi.mock('../src/wallet/controls', async () => (await import('./fake-wallet')).walletModule);

withNetworkEdge();

describe('funds on their way to the wallet', () => {
  it('says the funds are arriving, and the create drawer does not say Not Enough Bitcoin', async () => {
    scenario.vault = null;
    scenario.walletSats = 0;
    scenario.incomingSats = 100_000_000;
    fakeWallet.connectAs();
    const user = userEvent.setup();
    renderApp('/');
    // the devnet wallet's first sats: the faucet, named with its amount once
    const notice = await screen.findByText('The devnet faucet is sending you 1 BTC.', undefined, {
      timeout: 5_000,
    });
    expect(notice).toBeInTheDocument();

    await user.click(screen.getAllByRole('button', { name: 'Create Vault' })[0]!);
    const drawer = await screen.findByRole('dialog', {}, { timeout: 5_000 });
    await user.type(within(drawer).getByLabelText('Vault name'), 'First{Enter}');
    await waitFor(() => expect(within(drawer).getByText('Funds arriving…')).toBeInTheDocument(), {
      timeout: 5_000,
    });
    expect(within(drawer).queryByText(/^Available: 0 BTC/)).toBeNull();
    await user.type(within(drawer).getByLabelText('Deposit BTC'), '0.5');
    expect(within(drawer).queryByText('Not Enough Bitcoin')).toBeNull();
    expect(within(drawer).getByRole('alert')).toHaveTextContent(
      /^Funds arriving: 1 BTC is on its way/,
    );
  });

  it('gives Deposit the arriving funds as its reason, not an empty wallet', async () => {
    scenario.walletSats = 0;
    scenario.incomingSats = 50_000_000;
    fakeWallet.connectAs();
    renderApp('/');
    const deposit = await screen.findByRole('button', { name: 'Deposit' }, { timeout: 8_000 });
    await waitFor(() => expect(deposit).toBeDisabled());
    // the reason shown beside the button (ReasonButton's tooltip follows its wrapper)
    const reason = deposit.closest('.reason-anchor');
    await waitFor(() =>
      expect(reason).toHaveTextContent(/Funds arriving: 0\.5 BTC is on its way to your wallet/),
    );
    expect(reason).not.toHaveTextContent(/bitcoin/i);
  });

  it('names the faucet amount once, and says when the coins arrived', async () => {
    scenario.vault = null;
    scenario.walletSats = 0;
    scenario.incomingSats = 100_000_000;
    fakeWallet.connectAs();
    const { queryClient } = renderApp('/');
    const notice = await screen.findByText('The devnet faucet is sending you 1 BTC.', undefined, {
      timeout: 5_000,
    });
    const banner = notice.closest('.banner')!;
    expect(banner.textContent?.match(/1 BTC/g)).toHaveLength(1);
    expect(banner).toHaveTextContent('It counts once a block confirms it.');

    // A block confirms the payment: the notice says so instead of vanishing.
    scenario.walletSats = 100_000_000;
    scenario.incomingSats = 0;
    await queryClient.invalidateQueries({ queryKey: ['balance'] });
    const arrived = await screen.findByText('1 BTC arrived in your wallet', undefined, {
      timeout: 5_000,
    });
    expect(arrived.closest('.banner')).toHaveClass('banner--success');
    expect(screen.queryByText(/devnet faucet is sending/)).toBeNull();
    await userEvent.setup().click(screen.getByRole('button', { name: 'Dismiss' }));
    expect(screen.queryByText('1 BTC arrived in your wallet')).toBeNull();
  });
});

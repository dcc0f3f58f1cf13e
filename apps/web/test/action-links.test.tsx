import { describe, expect, it, vi } from 'vitest';
import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { fakeWallet } from './fake-wallet';
import { vault } from './fixtures';
import { withNetworkEdge } from './network-edge';
import { renderApp } from './render-app';
import { scenario } from './server';

vi.mock('../src/wallet', async () => (await import('./fake-wallet')).walletModule);
vi.mock('../src/wallet/controls', async () => (await import('./fake-wallet')).walletModule);

withNetworkEdge();

describe('?action= links', () => {
  it('opens the deposit drawer once the vault is known, and resets the URL to /', async () => {
    fakeWallet.connectAs();
    const { router } = renderApp('/?action=deposit');
    expect(await screen.findByRole('dialog', {}, { timeout: 5_000 })).toHaveTextContent('Deposit');
    expect(router.state.location.search).toBe('');
  });

  it('does not open a second vault: create-vault with a vault shows the dashboard and says why', async () => {
    fakeWallet.connectAs();
    const { router } = renderApp('/?action=create-vault');
    expect(await screen.findByText('You already have a vault')).toBeInTheDocument();
    expect(screen.getByTestId('btc-deposited')).toBeInTheDocument();
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
    expect(router.state.location.search).toBe('');
  });

  it('does not open an action for a wallet without a vault', async () => {
    scenario.vault = null;
    fakeWallet.connectAs();
    renderApp('/?action=borrow');
    expect(await screen.findByText('Open a vault first')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Create Vault' })).toBeInTheDocument();
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
  });

  it('tells why a disabled action did not open: repay with no UNIT debt', async () => {
    scenario.vault = { ...vault, unit_borrowed: 0 };
    fakeWallet.connectAs();
    renderApp('/?action=repay');
    expect(await screen.findByText('Repay is not available')).toBeInTheDocument();
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
  });

  it('keeps an action asked for before the wallet connects, and opens it after', async () => {
    const user = userEvent.setup();
    renderApp('/?action=withdraw');
    await user.click(await screen.findByRole('button', { name: 'Connect Wallet' }));
    await user.click(await screen.findByRole('button', { name: 'Devnet wallet' }));
    expect(await screen.findByRole('dialog', {}, { timeout: 5_000 })).toHaveTextContent('Withdraw');
  });
});

describe('wallet menu', () => {
  it('shows the connected address with Copy, and disconnects only from its own button', async () => {
    fakeWallet.connectAs();
    const user = userEvent.setup();
    renderApp('/');
    await screen.findByTestId('btc-deposited');
    await user.click(screen.getByRole('button', { name: /^Wallet tb1qfa/ }));
    const menu = await screen.findByRole('dialog', {}, { timeout: 5_000 });
    expect(menu).toHaveTextContent('tb1qfakeaddress000000000000000000000000000');
    expect(menu).toHaveTextContent('0.5 BTC');
    expect(menu).toHaveTextContent('10,000.00 UNIT');
    await user.click(screen.getByRole('button', { name: 'Copy payment address' }));
    expect(await screen.findByText('Copied to clipboard')).toBeInTheDocument();
    // Copying kept the wallet connected; Disconnect is what ends the session.
    expect(screen.getByTestId('btc-deposited')).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Disconnect' }));
    await waitFor(() => expect(screen.queryByTestId('btc-deposited')).not.toBeInTheDocument());
    expect(await screen.findAllByRole('button', { name: 'Connect Wallet' })).not.toHaveLength(0);
  });
});

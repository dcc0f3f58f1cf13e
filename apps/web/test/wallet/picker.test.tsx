import { render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { Network } from '@unit/protocol';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { WalletPicker, WalletProvider } from '../../src/wallet';
import { createDevnetAdapter } from '../../src/wallet/adapters/devnet';
import type { WalletAdapter, WalletId } from '../../src/wallet/types';
import { testConfig } from './fixtures';
import { announceMetaMask, installFakeLeather, installFakeUnisat } from './fake-providers';

let stopMetaMask: (() => void) | null = null;
afterEach(() => {
  stopMetaMask?.();
  stopMetaMask = null;
  delete window.unisat;
  delete window.LeatherProvider;
  localStorage.clear();
});

function renderPicker(network: Network, adapters?: Partial<Record<WalletId, WalletAdapter>>) {
  return render(
    <WalletProvider config={testConfig(network)} adapters={adapters}>
      <WalletPicker open onOpenChange={() => {}} />
    </WalletProvider>,
  );
}

// The picker's code loads on demand (LazyWalletPicker): loaded once here, so each test reads the
// dialog rather than waiting for a first transform of the wallet's screens.
beforeAll(async () => {
  await import('../../src/wallet/WalletPicker');
});

describe('WalletPicker', () => {
  it("shows the spec's prompt and 'Get' links for Xverse and Unisat when neither is installed", async () => {
    renderPicker('signet');
    const dialog = await screen.findByRole('dialog');
    expect(within(dialog).getByText('Select your preffered wallet to open a vault.')).toBeVisible();
    const getXverse = within(dialog).getByRole('link', { name: 'Get Xverse' });
    const getUnisat = within(dialog).getByRole('link', { name: 'Get Unisat' });
    expect(getXverse).toHaveTextContent('Get');
    expect(getXverse).toHaveAttribute('href', 'https://www.xverse.app/download');
    expect(getUnisat).toHaveAttribute('href', 'https://unisat.io/download');
    expect(within(dialog).queryByText('Leather')).toBeNull();
    expect(within(dialog).queryByText('MetaMask')).toBeNull();
    expect(within(dialog).queryByText('Devnet wallet')).toBeNull();
  });

  it('lists detected Leather and MetaMask (with why it cannot be used) and the devnet wallet on devnet', async () => {
    installFakeLeather();
    stopMetaMask = announceMetaMask();
    renderPicker('devnet');
    const dialog = await screen.findByRole('dialog');
    expect(within(dialog).getByRole('button', { name: 'Connect Leather' })).toBeEnabled();
    expect(within(dialog).getByText('MetaMask')).toBeVisible();
    expect(within(dialog).getByText(/MetaMask cannot hold Bitcoin vaults here/)).toBeVisible();
    expect(within(dialog).queryByRole('button', { name: 'Connect MetaMask' })).toBeNull();
    expect(within(dialog).getByRole('button', { name: 'Connect Devnet wallet' })).toBeEnabled();
  });

  it('notices an extension injected after the dialog opened', async () => {
    renderPicker('signet');
    const dialog = await screen.findByRole('dialog');
    expect(within(dialog).getByRole('link', { name: 'Get Unisat' })).toBeVisible();
    setTimeout(() => installFakeUnisat(), 600);
    expect(
      await within(dialog).findByRole('button', { name: 'Connect Unisat' }, { timeout: 2_500 }),
    ).toBeEnabled();
  });

  it('connects the devnet wallet and funds it from the visible Fund action', async () => {
    const paid: string[] = [];
    const devnet = createDevnetAdapter({
      network: 'devnet',
      requestFaucet: async (address) => void paid.push(address),
    });
    renderPicker('devnet', { devnet });
    const user = userEvent.setup();
    await user.click(await screen.findByRole('button', { name: 'Connect Devnet wallet' }));
    const fund = await screen.findByRole('button', { name: 'Fund' });
    await user.click(fund);
    expect(await screen.findByText('1 BTC is on its way from the devnet faucet.')).toBeVisible();
    expect(paid).toHaveLength(2);
    expect(paid[0]).toMatch(/^tb1q/);
    // Export key warns first: the key is shown only once the user has read who it gives control to.
    await user.click(screen.getByRole('button', { name: 'Export key' }));
    expect(screen.getByRole('alertdialog')).toHaveTextContent(
      'Anyone with this key controls the funds.',
    );
    expect(screen.queryByText('WIF')).toBeNull();
    await user.click(screen.getByRole('button', { name: 'Show the private key' }));
    expect(await screen.findByText('WIF')).toBeVisible();
  });
});

describe('WalletPicker closing', () => {
  it('closes itself once an extension wallet is connected from it', async () => {
    installFakeUnisat();
    const changes: boolean[] = [];
    render(
      <WalletProvider config={testConfig('signet')}>
        <WalletPicker open onOpenChange={(open) => changes.push(open)} />
      </WalletProvider>,
    );
    const user = userEvent.setup();
    await user.click(await screen.findByRole('button', { name: 'Connect Unisat' }));
    await waitFor(() => expect(changes).toContain(false));
  });
});

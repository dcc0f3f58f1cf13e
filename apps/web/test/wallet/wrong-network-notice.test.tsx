// A wallet switched to mainnet inside the extension, mid-session: the app lets it go, says why on
// the page (the picker is closed by then) and offers the wallet's own switch back.
import { act, render, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it } from 'vitest';
import { useWallet, WalletProvider } from '../../src/wallet';
import { WrongNetworkNotice } from '../../src/layout/WrongNetworkNotice';
import { installFakeUnisat, installFakeXverse } from './fake-providers';
import { testConfig } from './fixtures';

afterEach(() => {
  delete window.unisat;
  delete (window as { XverseProviders?: unknown }).XverseProviders;
  localStorage.clear();
});

function Page({ walletId = 'unisat' }: { walletId?: 'unisat' | 'xverse' }) {
  const wallet = useWallet();
  return (
    <>
      <WrongNetworkNotice />
      <p>{wallet.status}</p>
      <button type="button" onClick={() => void wallet.connect(walletId)}>
        Connect
      </button>
    </>
  );
}

describe('wrong network notice', () => {
  it('explains a network switched in the wallet and switches it back', async () => {
    const fake = installFakeUnisat();
    const user = userEvent.setup();
    render(
      <WalletProvider config={testConfig('signet')}>
        <Page />
      </WalletProvider>,
    );
    await user.click(screen.getByRole('button', { name: 'Connect' }));
    await screen.findByText('connected');
    expect(screen.queryByRole('alert')).not.toBeInTheDocument();

    fake.chain = 'BITCOIN_MAINNET';
    act(() => fake.emit('networkChanged'));
    const alert = await screen.findByRole('alert');
    expect(alert).toHaveTextContent(
      'Your wallet is on Bitcoin mainnet, but this app runs on Signet. Switch the wallet to Signet to continue.',
    );
    expect(screen.getByText('disconnected')).toBeInTheDocument();

    await user.click(screen.getByRole('button', { name: 'Switch network' }));
    await screen.findByText('connected');
    expect(fake.chain).toBe('BITCOIN_SIGNET');
    await waitFor(() => expect(screen.queryByRole('alert')).not.toBeInTheDocument());
  });

  it('follows an Xverse switched to mainnet through its networkChange event', async () => {
    const fake = installFakeXverse();
    const user = userEvent.setup();
    render(
      <WalletProvider config={testConfig('signet')}>
        <Page walletId="xverse" />
      </WalletProvider>,
    );
    await user.click(screen.getByRole('button', { name: 'Connect' }));
    await screen.findByText('connected');
    // The app subscribes once sats-connect has loaded: an event before that reaches no one.
    await waitFor(() => expect(fake.listens('networkChange')).toBe(true));

    fake.network = 'Mainnet';
    act(() => fake.emit('networkChange'));
    expect(await screen.findByRole('alert')).toHaveTextContent(
      'Your wallet is on Bitcoin mainnet, but this app runs on Signet.',
    );
    expect(screen.getByText('disconnected')).toBeInTheDocument();
  });
});

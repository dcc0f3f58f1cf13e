// The vault endpoint failing must not replace the page with the error screen: a vault never read
// offers Try again; a vault already shown stays on screen through a failed refetch.
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { http, HttpResponse } from 'msw';
import { FAKE_ACCOUNT, fakeWallet } from './fake-wallet';
import { withNetworkEdge } from './network-edge';
import { renderApp } from './render-app';
import { scenario, server } from './server';

vi.mock('../src/wallet', async () => (await import('./fake-wallet')).walletModule);
vi.mock('../src/wallet/controls', async () => (await import('./fake-wallet')).walletModule);

withNetworkEdge();

let failing = false;
beforeEach(() => {
  failing = false;
  server.use(
    http.get('*/api/vaults', () =>
      failing
        ? HttpResponse.json({ error: 'Service unavailable', code: 'internal' }, { status: 503 })
        : HttpResponse.json([scenario.vault]),
    ),
  );
});

describe('vault unavailable', () => {
  it('offers Try again when the vault cannot be read, and shows it once it can', async () => {
    failing = true;
    fakeWallet.connectAs();
    const user = userEvent.setup();
    renderApp('/');
    const alert = await screen.findByRole('alert', {}, { timeout: 8_000 });
    expect(alert).toHaveTextContent('Your vault could not be loaded.');
    expect(screen.queryByText('Oops! Something went wrong')).not.toBeInTheDocument();

    failing = false;
    await user.click(screen.getByRole('button', { name: 'Try again' }));
    expect(await screen.findByTestId('btc-deposited')).toHaveTextContent('1 BTC');
  });

  it('keeps the dashboard through a failed refetch', async () => {
    fakeWallet.connectAs();
    const { queryClient } = renderApp('/');
    expect(await screen.findByTestId('btc-deposited')).toHaveTextContent('1 BTC');
    failing = true;
    await queryClient.refetchQueries({ queryKey: ['vault'] });
    expect(queryClient.getQueryState(['vault', FAKE_ACCOUNT.vaultPubkey])?.status).toBe('error');
    expect(screen.getByTestId('btc-deposited')).toHaveTextContent('1 BTC');
    expect(screen.queryByText('Oops! Something went wrong')).not.toBeInTheDocument();
  });
});

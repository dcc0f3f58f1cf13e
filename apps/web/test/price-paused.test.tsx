// While the server says the price is stale, the dashboard says so before any click: a paused
// banner with the cause (the guardians' quorum, or the price feeds), the time of the last fresh
// price and what to do, and every action button disabled with that cause.
import { describe, expect, it, vi } from 'vitest';
import { screen, within } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { PRICE_PAUSE_COPY } from '@unit/protocol';
import { formatPriceTime } from '../src/api/bitcoin-price';
import { fakeWallet } from './fake-wallet';
import { NOW_S, price } from './fixtures';
import { withNetworkEdge } from './network-edge';
import { renderApp } from './render-app';
import { server } from './server';

vi.mock('../src/wallet', async () => (await import('./fake-wallet')).walletModule);
vi.mock('../src/wallet/controls', async () => (await import('./fake-wallet')).walletModule);

withNetworkEdge();

const ACTIONS = ['Deposit', 'Withdraw', 'Borrow', 'Repay'];
const staleAt = NOW_S - 240;

const actionButton = (name: string) => screen.getByRole('button', { name });

describe('the paused banner', () => {
  it('says the guardians lost their quorum, since when and what to do, and disables every action with that cause', async () => {
    server.use(
      http.get('*/api/bitcoin-price', () =>
        HttpResponse.json({ ...price, time: staleAt, stale: true, stale_reason: 'no_quorum' }),
      ),
    );
    fakeWallet.connectAs();
    renderApp('/');
    const banner = await screen.findByTestId('price-paused', {}, { timeout: 5_000 });
    const since = formatPriceTime(staleAt);
    expect(within(banner).getByText('Vault actions are paused')).toBeInTheDocument();
    expect(banner).toHaveTextContent(
      `The guardians have no price quorum: too few of them answer with a fresh bitcoin price, so no price newer than ${since} can be signed.`,
    );
    expect(banner).toHaveTextContent(PRICE_PAUSE_COPY.whatToDo);
    await screen.findByRole('button', { name: 'Deposit' }, { timeout: 5_000 });
    for (const name of ACTIONS) {
      const button = actionButton(name);
      expect(button).toBeDisabled();
      expect(button).toHaveAttribute('title', PRICE_PAUSE_COPY.button.no_quorum);
    }
  });

  it('names the stale price feeds as the cause in off mode', async () => {
    server.use(
      http.get('*/api/bitcoin-price', () =>
        HttpResponse.json({ ...price, time: staleAt, stale: true, stale_reason: 'no_fresh_price' }),
      ),
    );
    fakeWallet.connectAs();
    renderApp('/');
    const banner = await screen.findByTestId('price-paused', {}, { timeout: 5_000 });
    expect(banner).toHaveTextContent(
      `The bitcoin price is stale: the price feeds have given no fresh price since ${formatPriceTime(staleAt)}.`,
    );
    await screen.findByRole('button', { name: 'Borrow' }, { timeout: 5_000 });
    expect(actionButton('Borrow')).toHaveAttribute('title', PRICE_PAUSE_COPY.button.no_fresh_price);
  });

  it('is absent and the actions open while the price is fresh', async () => {
    fakeWallet.connectAs();
    renderApp('/');
    await screen.findByRole('button', { name: 'Borrow' }, { timeout: 5_000 });
    expect(screen.queryByTestId('price-paused')).toBeNull();
    expect(actionButton('Borrow')).toBeEnabled();
    expect(actionButton('Deposit')).toBeEnabled();
  });
});

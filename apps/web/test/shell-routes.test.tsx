// Unknown routes, reported errors and the contained chart error, through the real router, providers
// and error boundaries; the reports are read where they land, at POST /api/client-errors.
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { http, HttpResponse } from 'msw';
import { fakeWallet } from './fake-wallet';
import { withNetworkEdge } from './network-edge';
import { renderApp } from './render-app';
import { price } from './fixtures';
import { server } from './server';

vi.mock('../src/wallet', async () => (await import('./fake-wallet')).walletModule);
vi.mock('../src/wallet/controls', async () => (await import('./fake-wallet')).walletModule);

withNetworkEdge();

let reports: Record<string, unknown>[] = [];
beforeEach(() => {
  reports = [];
  server.use(
    http.post('*/api/client-errors', async ({ request }) => {
      reports.push((await request.json()) as Record<string, unknown>);
      return new HttpResponse(null, { status: 204 });
    }),
  );
});

describe('an unknown route', () => {
  it('shows the not-found page inside the shell, with the navigation to leave it', async () => {
    const user = userEvent.setup();
    renderApp('/no-such-page');
    expect(
      await screen.findByRole('heading', { name: 'Page not found' }, { timeout: 5_000 }),
    ).toBeInTheDocument();
    expect(screen.queryByText('Oops! Something went wrong')).not.toBeInTheDocument();
    expect(screen.getByRole('navigation', { name: 'Main' })).toBeInTheDocument();
    await user.click(screen.getByRole('link', { name: 'Go to your vault' }));
    expect(await screen.findByRole('button', { name: 'Create Vault' })).toBeInTheDocument();
    expect(reports).toEqual([]);
  });
});

describe('the error screen', () => {
  it('reports the render error it shows, once, and Try again recovers', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => {});
    const user = userEvent.setup();
    renderApp('/?devnet-crash=render');
    expect(
      await screen.findByText('Oops! Something went wrong', {}, { timeout: 5_000 }),
    ).toBeInTheDocument();
    await waitFor(() => expect(reports).toHaveLength(1));
    expect(reports[0]).toMatchObject({
      boundary: 'screen',
      message: 'Devnet crash drill: a deliberate render error',
      path: '/',
    });
    await user.click(screen.getByRole('button', { name: 'Try again' }));
    expect(await screen.findByRole('button', { name: 'Create Vault' })).toBeInTheDocument();
    expect(reports).toHaveLength(1);
  });
});

describe('a chart error', () => {
  it('stays in the chart: the dashboard remains, the error is reported, Try again redraws', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => {});
    fakeWallet.connectAs();
    const user = userEvent.setup();
    renderApp('/?devnet-crash=chart');
    expect(await screen.findByTestId('btc-deposited', {}, { timeout: 8_000 })).toHaveTextContent(
      '1 BTC',
    );
    expect(
      await screen.findByText(/The chart could not be drawn\./, {}, { timeout: 5_000 }),
    ).toBeInTheDocument();
    expect(screen.queryByText('Oops! Something went wrong')).not.toBeInTheDocument();
    await waitFor(() => expect(reports).toHaveLength(1));
    expect(reports[0]).toMatchObject({
      boundary: 'chart',
      message: 'Devnet crash drill: a deliberate chart error',
    });
    await user.click(screen.getByRole('button', { name: 'Try again' }));
    await waitFor(() =>
      expect(screen.queryByText(/The chart could not be drawn\./)).not.toBeInTheDocument(),
    );
  });
});

describe('the price change in the banner', () => {
  // Each period's series starts at a price from which the header's $95,000 is the change below.
  const starts: Record<string, number> = {
    '24h': 93_873.52,
    '7d': 98_400.62,
    '30d': 95_000,
    '1y': 64_189.19,
  };
  const series = (start: number, change: number) => ({
    data: [
      { timestamp: 1, price: start },
      { timestamp: 2, price: start * 1.5 },
    ],
    // the server's own figure, stale on purpose: the header computes from the price it shows
    change,
    error: null,
  });

  it("shows each period's change to the header's price and cycles 24h, 7d, 30d, 1y on click", async () => {
    server.use(
      http.get('*/api/price-history', ({ request }) => {
        const period = new URL(request.url).searchParams.get('timePeriod')!;
        return HttpResponse.json(series(starts[period]!, -2.27));
      }),
    );
    const user = userEvent.setup();
    renderApp('/');
    const button = await screen.findByRole('button', { name: /^Price change\s*\+1\.20%\s*24h$/ });
    await user.click(button);
    expect(
      await screen.findByRole('button', { name: /^Price change\s*\u22123\.46%\s*7d$/ }),
    ).toHaveClass('price-change--down');
    await user.click(button);
    expect(
      await screen.findByRole('button', { name: /^Price change\s*0\.00%\s*30d$/ }),
    ).toHaveClass('price-change--flat');
    await user.click(button);
    await screen.findByRole('button', { name: /^Price change\s*\+48\.00%\s*1y$/ });
    await user.click(button);
    await screen.findByRole('button', { name: /^Price change\s*\+1\.20%\s*24h$/ });
  });

  it('follows the header price after a 20% fall while the cached series stays the same', async () => {
    server.use(
      http.get('*/api/price-history', () => HttpResponse.json(series(95_000, -2.27))),
      http.get('*/api/bitcoin-price', () => HttpResponse.json({ USD: 76_000, time: price.time })),
    );
    renderApp('/');
    const button = await screen.findByRole('button', {
      name: /^Price change\s*\u221220\.00%\s*24h$/,
    });
    expect(button).toHaveClass('price-change--down');
    expect(screen.getByText('$76,000.00')).toBeInTheDocument();
  });
});

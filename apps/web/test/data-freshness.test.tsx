// What the dashboard shows when its market data is old or missing: the stale-price indicator of the
// price banner, and the chart's fallback to the cached 1y prices (SPEC §7, §8).
import { afterEach, describe, expect, it, vi } from 'vitest';
import { fireEvent, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { http, HttpResponse } from 'msw';
import {
  PRICE_HISTORY_RETRIES,
  PRICE_HISTORY_RETRY_DELAY_MS,
  type PriceHistoryDto,
} from '@unit/protocol';
import { advance, eventually, startFakeClock, stopFakeClock } from './fake-clock';
import { fakeWallet } from './fake-wallet';
import { priceHistory } from './fixtures';
import { withNetworkEdge } from './network-edge';
import { renderApp } from './render-app';
import { server } from './server';

vi.mock('../src/wallet', async () => (await import('./fake-wallet')).walletModule);
vi.mock('../src/wallet/controls', async () => (await import('./fake-wallet')).walletModule);

withNetworkEdge();

afterEach(() => {
  stopFakeClock();
});

/** The local hh:mm of a unix time, written out by hand rather than with the banner's formatter. */
const hhmm = (seconds: number) => {
  const d = new Date(seconds * 1000);
  return `${String(d.getHours()).padStart(2, '0')}:${String(d.getMinutes()).padStart(2, '0')}`;
};

describe("stale price: 'Price as of hh:mm'", () => {
  const banner = () => screen.getByText('BTC', { selector: '.price-banner__label' }).parentElement!;

  it('is absent for a price one oracle tick and one refetch old (60 s), as a healthy one is', async () => {
    const time = Math.floor(Date.now() / 1000) - 55;
    server.use(http.get('*/api/bitcoin-price', () => HttpResponse.json({ USD: 95_000, time })));
    renderApp('/');
    await waitFor(() => expect(banner()).toHaveTextContent('$95,000'));
    expect(banner()).not.toHaveTextContent('Price as of');
    expect(banner()).not.toHaveClass('price-banner--stale');
  });

  it('shows the time of a price older than that', async () => {
    const time = Math.floor(Date.now() / 1000) - 45 * 60;
    server.use(http.get('*/api/bitcoin-price', () => HttpResponse.json({ USD: 95_000, time })));
    renderApp('/');
    await waitFor(() => expect(banner()).toHaveTextContent('$95,000'));
    expect(banner()).toHaveTextContent(`Price as of ${hhmm(time)}`);
    expect(banner()).toHaveClass('price-banner--stale');
  });

  it('shows the time at once when the oracle says its price is stale', async () => {
    const time = Math.floor(Date.now() / 1000) - 5;
    server.use(
      http.get('*/api/bitcoin-price', () => HttpResponse.json({ USD: 95_000, time, stale: true })),
    );
    renderApp('/');
    await waitFor(() => expect(banner()).toHaveTextContent('$95,000'));
    expect(banner()).toHaveTextContent(`Price as of ${hhmm(time)}`);
    expect(banner()).toHaveClass('price-banner--stale');
  });

  it('appears once the price ages past 60 s, and goes when a fresh price arrives', async () => {
    vi.useFakeTimers({
      toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date'],
      shouldAdvanceTime: true,
    });
    // The feed answers the same price until it recovers.
    const stuckAt = Math.floor(Date.now() / 1000) - 20;
    let time = stuckAt;
    server.use(http.get('*/api/bitcoin-price', () => HttpResponse.json({ USD: 95_000, time })));
    renderApp('/');
    await waitFor(() => expect(banner()).toHaveTextContent('$95,000'));
    expect(banner()).not.toHaveTextContent('Price as of');

    // 20 s + 30 s: the refetch answered the same stuck price, still within 60 s.
    await advance(30_000);
    expect(banner()).not.toHaveTextContent('Price as of');
    // 20 s + 45 s: a tick was missed (the clock re-reads every 5 s).
    await advance(15_000);
    expect(banner()).toHaveTextContent(`Price as of ${hhmm(stuckAt)}`);

    // The next refetch (60 s after the first fetch) brings a fresh price.
    time = Math.floor(Date.now() / 1000) + 15;
    await advance(15_000);
    await waitFor(() => expect(banner()).not.toHaveTextContent('Price as of'));
  });
});

describe('price history failure (SPEC §8)', () => {
  /**
   * 1y prices that no other interval has: the chart reaches 380% only if it uses them (its last
   * point is at the current price, as the gauge reads: 190%).
   */
  const YEAR: PriceHistoryDto = {
    ...priceHistory(365, 86_400),
    data: priceHistory(365, 86_400).data.map((p) => ({ ...p, price: 190_000 })),
  };
  const chart = (interval: '1D' | '1W' | 'YTD') =>
    screen.getByRole('group', { name: `Chart of the collateral ratio, ${interval}` });

  function answer(failing: { period: string | string[]; how: 'status' | 'error-field' }) {
    const failed = [failing.period].flat();
    const asked: string[] = [];
    server.use(
      http.get('*/api/price-history', ({ request }) => {
        const period = new URL(request.url).searchParams.get('timePeriod') ?? '24h';
        asked.push(period);
        if (failed.includes(period))
          return failing.how === 'status'
            ? HttpResponse.json({ error: 'Upstream down', code: 'internal' }, { status: 502 })
            : HttpResponse.json({ data: [], change: 0, error: 'Price source unavailable' });
        if (period === '1y') return HttpResponse.json(YEAR);
        return HttpResponse.json(priceHistory(168, 3600));
      }),
    );
    return asked;
  }

  it.each(['status', 'error-field'] as const)(
    'retries 5 times at 5 s, then draws the interval from the cached 1y prices (%s)',
    async (how) => {
      const asked = answer({ period: '7d', how });
      fakeWallet.connectAs();
      const user = userEvent.setup();
      renderApp('/');
      await waitFor(() => expect(chart('1D')).toBeInTheDocument(), {
        timeout: 5_000,
      });
      // YTD once: the 1y prices are now cached.
      await user.click(screen.getByRole('button', { name: 'YTD' }));
      await waitFor(() => expect(chart('YTD')).toHaveAccessibleDescription(/highest 380%/));

      startFakeClock();
      fireEvent.click(screen.getByRole('button', { name: '1W' }));
      const weekly = () => asked.filter((p) => p === '7d').length;
      await eventually(() => expect(weekly()).toBe(1));
      for (let retry = 1; retry <= PRICE_HISTORY_RETRIES; retry++) {
        // still retrying: the chart waits rather than giving up
        expect(screen.getByRole('status', { name: 'Loading chart' })).toBeInTheDocument();
        await advance(PRICE_HISTORY_RETRY_DELAY_MS - 1);
        expect(weekly()).toBe(retry);
        await advance(1);
        await eventually(() => expect(weekly()).toBe(retry + 1));
      }
      // 1W priced from the 1y data (1 BTC × 190,000 / 50,000 UNIT)
      await eventually(() => expect(chart('1W')).toHaveAccessibleDescription(/highest 380%/));
      expect(screen.getByRole('button', { name: '1W' })).toHaveAttribute('aria-pressed', 'true');
      expect(screen.queryByText('The chart could not be loaded.')).not.toBeInTheDocument();
      await advance(60_000);
      expect(weekly()).toBe(1 + PRICE_HISTORY_RETRIES);
    },
  );

  it('fetches the 1y prices for the fallback when none are cached yet', async () => {
    const asked = answer({ period: '24h', how: 'error-field' });
    fakeWallet.connectAs();
    startFakeClock();
    renderApp('/');
    await eventually(() =>
      expect(screen.getByRole('status', { name: 'Loading chart' })).toBeInTheDocument(),
    );
    for (let retry = 1; retry <= PRICE_HISTORY_RETRIES; retry++)
      await advance(PRICE_HISTORY_RETRY_DELAY_MS);
    // 1D priced from the 1y data (1 BTC × 190,000 / 50,000 UNIT)
    await eventually(() => expect(chart('1D')).toHaveAccessibleDescription(/highest 380%/));
    expect(asked.filter((p) => p === '1y')).toHaveLength(1);
    expect(screen.queryByText('The chart could not be loaded.')).not.toBeInTheDocument();
  });

  it('says the chart could not be loaded when the 1y prices fail too', async () => {
    answer({ period: ['24h', '1y'], how: 'error-field' });
    fakeWallet.connectAs();
    startFakeClock();
    renderApp('/');
    await eventually(() =>
      expect(screen.getByRole('status', { name: 'Loading chart' })).toBeInTheDocument(),
    );
    // the interval's retries, then the 1y fallback's own
    for (let retry = 1; retry <= 2 * PRICE_HISTORY_RETRIES; retry++)
      await advance(PRICE_HISTORY_RETRY_DELAY_MS);
    await eventually(() =>
      expect(screen.getByRole('alert')).toHaveTextContent('The chart could not be loaded.'),
    );
    expect(screen.queryByRole('img', { name: /Collateral ratio/ })).not.toBeInTheDocument();
  });
});

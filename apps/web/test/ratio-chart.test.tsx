// The collateral ratio chart (SPEC §2 Chart, §9): the line from the vault's opening, moving with
// the price; its summary, crosshair and tooltip by keyboard and pointer; the labelled 135% line
// and the bands; the intervals; fullscreen on a phone, left with Escape or its close button.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { act, fireEvent, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { http, HttpResponse } from 'msw';
import { fakeWallet } from './fake-wallet';
import { NOW_S, record, vault } from './fixtures';
import { withNetworkEdge } from './network-edge';
import { renderApp } from './render-app';
import { historyPages, scenario, server } from './server';
import { resetViewport, setViewportWidth } from './viewport';

vi.mock('../src/wallet', async () => (await import('./fake-wallet')).walletModule);
vi.mock('../src/wallet/controls', async () => (await import('./fake-wallet')).walletModule);

withNetworkEdge();

// Opened two hours ago with the fixture's 1 BTC against 50,000.00 UNIT; nothing since.
const OPENED = NOW_S - 7200;
const periods: string[] = [];

beforeEach(() => {
  periods.length = 0;
  scenario.vault = { ...vault, created_at: OPENED };
  server.use(
    http.get('*/api/vaults/:id/points', ({ request }) => {
      periods.push(new URL(request.url).searchParams.get('timePeriod') ?? '');
      return HttpResponse.json([
        { timestamp: OPENED, btc_locked: 100_000_000, unit_borrowed: 5_000_000, vaults: 1 },
      ]);
    }),
    http.get(
      '*/api/vaults/:id/history',
      historyPages([
        {
          ...record(1, OPENED, 'o', 100_000_000, 5_000_000, 100_000_000, 5_000_000),
          oracle_price: 100_000,
        },
      ]),
    ),
    // The price was 100,000 when the vault opened and fell to 80,000 an hour ago; it is 95,000
    // now (the fixture's /api/bitcoin-price). The same prices for every interval.
    http.get('*/api/price-history', () =>
      HttpResponse.json({
        data: [
          { timestamp: NOW_S - 400 * 86_400, price: 70_000 },
          { timestamp: NOW_S - 8000, price: 100_000 },
          { timestamp: NOW_S - 3600, price: 80_000 },
        ],
        change: 0,
        error: null,
      }),
    ),
  );
  fakeWallet.connectAs();
});
afterEach(() => resetViewport());

const plot = (interval = '1D') =>
  screen.findByRole(
    'group',
    { name: `Chart of the collateral ratio, ${interval}` },
    { timeout: 5_000 },
  );

const moment = (seconds: number) =>
  new Intl.DateTimeFormat('en-US', {
    month: 'short',
    day: 'numeric',
    year: 'numeric',
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
  }).format(new Date(seconds * 1000));

describe('collateral ratio chart', () => {
  it('sums up the ratio now, its low and high, the line moving with the price alone', async () => {
    renderApp('/');
    const chart = await plot();
    // 1 × 100,000 / 50,000 = 200% at the opening; 80,000: 160%; 95,000 now: 190%
    expect(chart).toHaveAccessibleDescription(
      'Collateral ratio now 190%; over 1D lowest 160%, highest 200%. ' +
        'Use the left and right arrow keys to read each point.',
    );
    const card = screen.getByRole('region', { name: 'Collateral ratio' });
    expect(card).toHaveTextContent('Now 190%Low 160%High 200%');
    // the 135% line says what it is; the SPEC §9 bands are named
    expect(within(chart).getByText('Liquidation 135%')).toBeInTheDocument();
    for (const band of ['Risky', 'Moderate', 'Healthy'])
      expect(within(chart).getByText(band)).toBeInTheDocument();
    // SPEC §9: the axis tops out at 500+
    expect(within(chart).getByText('500+%')).toBeInTheDocument();
    expect(within(chart).getByText('125%')).toBeInTheDocument();
  });

  it('reads each point by keyboard: date, ratio, price, and the action taken there', async () => {
    const user = userEvent.setup();
    renderApp('/');
    const chart = await plot();
    act(() => chart.focus());
    const tooltip = within(chart).getByRole('status');
    // focus starts at now
    expect(tooltip).toHaveTextContent('Ratio 190%');
    expect(tooltip).toHaveTextContent('BTC $95,000.00');
    await user.keyboard('{ArrowLeft}');
    // the 80,000 close of the bucket that starts an hour ago: the step at that bucket's end
    expect(tooltip).toHaveTextContent(moment(NOW_S - 3300));
    expect(tooltip).toHaveTextContent('Ratio 160%');
    expect(tooltip).toHaveTextContent('BTC $80,000.00');
    // the first point is the opening: nothing is drawn before it
    await user.keyboard('{Home}');
    expect(tooltip).toHaveTextContent(moment(OPENED));
    expect(tooltip).toHaveTextContent('Ratio 200%');
    expect(tooltip).toHaveTextContent('BTC $100,000.00');
    expect(tooltip).toHaveTextContent('Open Vault');
    await user.keyboard('{End}');
    expect(tooltip).toHaveTextContent('Ratio 190%');
    // leaving the chart hides it
    await user.tab();
    expect(within(chart).queryByRole('status')).not.toBeInTheDocument();
  });

  it('follows the pointer with the crosshair over the whole day, empty before the opening', async () => {
    renderApp('/');
    const chart = await plot();
    // jsdom lays nothing out: the drawing is 800 px wide, the axis from 52 to 788 px spans the
    // day, so the opening two hours ago sits at 727 px, the step an hour ago at 760 px
    const svg = chart.querySelector('svg')!;
    const ticks = [...svg.querySelectorAll('text.chart__tick')].map((t) => t.textContent);
    // the day's clock ticks, three hours apart, not one lone tick
    expect(ticks.filter((t) => /^\d\d:\d\d$/.test(t ?? '')).length).toBeGreaterThanOrEqual(7);
    const line = svg.querySelector('path.chart__line')!.getAttribute('d')!;
    // the line starts at the opening, drawn as steps: only horizontal and vertical segments
    expect(Number(/^M([\d.]+)/.exec(line)![1])).toBeCloseTo(726.7, 0);
    const corners = [...line.matchAll(/[ML]([\d.]+),([\d.]+)/g)].map((m) => [+m[1]!, +m[2]!]);
    expect(corners.length).toBeGreaterThan(3);
    for (let i = 1; i < corners.length; i++) {
      const [[x0, y0], [x1, y1]] = [corners[i - 1]!, corners[i]!];
      expect(x0 === x1 || y0 === y1).toBe(true);
    }
    fireEvent.pointerMove(chart, { clientX: 40 });
    expect(within(chart).getByRole('status')).toHaveTextContent('Ratio 200%');
    fireEvent.pointerMove(chart, { clientX: 752 });
    expect(within(chart).getByRole('status')).toHaveTextContent('Ratio 160%');
    fireEvent.pointerMove(chart, { clientX: 790 });
    expect(within(chart).getByRole('status')).toHaveTextContent('Ratio 190%');
    fireEvent.pointerLeave(chart, { pointerType: 'mouse' });
    expect(within(chart).queryByRole('status')).not.toBeInTheDocument();
  });

  it('asks each interval of the points route; each spans its own period', async () => {
    const user = userEvent.setup();
    renderApp('/');
    const firstX = async (label: string) => {
      const chart = await plot(label);
      const d = chart.querySelector('path.chart__line')!.getAttribute('d')!;
      return Number(/^M([\d.]+)/.exec(d)![1]);
    };
    const xs = [await firstX('1D')];
    for (const label of ['1W', '1M', 'YTD']) {
      await user.click(screen.getByRole('button', { name: label }));
      expect(screen.getByRole('button', { name: label })).toHaveAttribute('aria-pressed', 'true');
      xs.push(await firstX(label));
    }
    expect(periods).toEqual(expect.arrayContaining(['24h', '7d', '30d', '1y']));
    // a two-hour-old vault sits ever further right as the period grows
    for (let i = 1; i < xs.length; i++) expect(xs[i]!).toBeGreaterThan(xs[i - 1]!);
    expect(xs.at(-1)!).toBeGreaterThan(786);
    const year = await plot('YTD');
    // the opening's own price (100,000: 200%) holds until the day's close is known, now (95,000)
    expect(year).toHaveAccessibleDescription(/now 190%; over YTD lowest 190%, highest 200%/);
    // month ticks on the year's axis
    const ticks = [...year.querySelectorAll('text.chart__tick')].map((t) => t.textContent ?? '');
    expect(ticks.some((t) => /^[A-Z][a-z]{2}( \d{4})?$/.test(t))).toBe(true);
  });
});

describe('action markers', () => {
  const markers = async () =>
    within(await plot()).findByRole('group', { name: 'Actions on the chart' });

  it('groups a liquidation and its claim in the same minute as one marker at 130%, listing both', async () => {
    server.use(
      http.get(
        '*/api/vaults/:id/history',
        historyPages([
          {
            ...record(1, OPENED, 'o', 100_000_000, 5_000_000, 100_000_000, 5_000_000),
            oracle_price: 100_000,
          },
          {
            ...record(2, NOW_S - 600, 'l', 100_000_000, 5_000_000, 100_000_000, 5_000_000),
            oracle_price: 65_000,
          },
          { ...record(3, NOW_S - 590, 'x', 0, 0, 100_000_000, 5_000_000), oracle_price: 65_000 },
        ]),
      ),
    );
    const user = userEvent.setup();
    renderApp('/');
    const group = await markers();
    const both = within(group).getByRole('button', {
      name: /^2 actions: Vault Liquidation: .*Liquidation Claim: /,
    });
    expect(both).toHaveTextContent('2');
    await user.hover(both);
    const tip = await screen.findByRole('tooltip');
    // 1 × 65,000 / 50,000 = 130%: where the liquidation left it, and the ratio it was claimed at
    expect(tip).toHaveTextContent('Vault Liquidation');
    expect(tip).toHaveTextContent('Ratio after 130%');
    expect(tip).toHaveTextContent('Liquidation Claim');
    expect(tip).toHaveTextContent('1 BTC of collateral and 50,000.00 UNIT of debt claimed');
    expect(tip).toHaveTextContent('Ratio at the claim 130%');
  });

  it("shows a young vault's actions at the ratios they left, by pointer and by keyboard", async () => {
    // opened, topped up and borrowed within three minutes at $100,000
    server.use(
      http.get(
        '*/api/vaults/:id/history',
        historyPages([
          {
            ...record(1, NOW_S - 300, 'o', 100_000_000, 5_000_000, 100_000_000, 5_000_000),
            oracle_price: 100_000,
          },
          {
            ...record(2, NOW_S - 240, 'd', 150_000_000, 5_000_000, 50_000_000, 0),
            oracle_price: 100_000,
          },
          {
            ...record(3, NOW_S - 120, 'b', 150_000_000, 7_500_000, 0, 2_500_000),
            oracle_price: 100_000,
          },
        ]),
      ),
    );
    scenario.vault = {
      ...vault,
      created_at: NOW_S - 300,
      btc_locked: 150_000_000,
      unit_borrowed: 7_500_000,
    };
    const user = userEvent.setup();
    renderApp('/');
    const group = await markers();
    // 200% after the opening, 300% after the deposit, 200% after the borrow: the opening and the
    // borrow share a place and a marker; nothing sits higher than 300%
    const deposit = within(group).getByRole('button', {
      name: /^Deposit BTC: 0\.5 BTC deposited on /,
    });
    expect(deposit).toHaveTextContent('D');
    await user.hover(deposit);
    const tip = await screen.findByRole('tooltip');
    expect(tip).toHaveTextContent('Deposit BTC');
    expect(tip).toHaveTextContent('0.5 BTC deposited');
    expect(tip).toHaveTextContent(moment(NOW_S - 240));
    expect(tip).toHaveTextContent('Ratio after 300%');
    await user.unhover(deposit);
    await waitFor(() => expect(screen.queryByRole('tooltip')).not.toBeInTheDocument());

    // Keyboard: one tab stop for the markers, the arrow keys between them.
    const buttons = within(group).getAllByRole('button');
    expect(buttons.filter((b) => b.tabIndex === 0)).toHaveLength(1);
    act(() => buttons[0]!.focus());
    expect(await screen.findByRole('tooltip')).toHaveTextContent('Deposit BTC');
    await user.keyboard('{End}');
    expect(buttons.at(-1)).toHaveFocus();
    const last = screen.getByRole('tooltip');
    expect(last).toHaveTextContent('Open Vault');
    expect(last).toHaveTextContent('1 BTC deposited, 50,000.00 UNIT borrowed');
    expect(last).toHaveTextContent('Borrow UNIT');
    expect(last).toHaveTextContent('25,000.00 UNIT borrowed');
    expect(last).toHaveTextContent('Ratio after 200%');
    await user.keyboard('{Escape}');
    expect(screen.queryByRole('tooltip')).not.toBeInTheDocument();
  });
});

describe('chart fullscreen on a phone', () => {
  // a region, or a dialog while fullscreen
  const card = () => screen.getByRole('heading', { name: 'Collateral ratio' }).closest('section');

  it('fills the screen as a dialog, focuses its close button and leaves with Escape', async () => {
    setViewportWidth(390);
    const user = userEvent.setup();
    renderApp('/');
    await plot();
    const toggle = screen.getByRole('button', { name: 'Fullscreen' });
    expect(toggle).toHaveAttribute('aria-pressed', 'false');

    await user.click(toggle);
    const dialog = screen.getByRole('dialog', { name: 'Collateral ratio' });
    expect(dialog).toHaveClass('chart--fullscreen');
    const close = within(dialog).getByRole('button', { name: 'Exit fullscreen' });
    expect(close).toHaveFocus();
    expect(document.body.style.overflow).toBe('hidden');
    // Tab stays inside: from the close button round to the first interval
    await user.tab();
    expect(
      within(dialog).getByRole('group', { name: /Chart of the collateral ratio/ }),
    ).toHaveFocus();
    // then the markers' one tab stop (the opening's), then round to the first interval
    await user.tab();
    expect(within(dialog).getByRole('button', { name: /^Open Vault: / })).toHaveFocus();
    await user.tab();
    expect(within(dialog).getByRole('button', { name: '1D' })).toHaveFocus();

    await user.keyboard('{Escape}');
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
    expect(card()).not.toHaveClass('chart--fullscreen');
    expect(screen.getByRole('button', { name: 'Fullscreen' })).toHaveFocus();
    expect(document.body.style.overflow).toBe('');
  });

  it('leaves with its visible close button, and when the screen widens', async () => {
    setViewportWidth(390);
    const user = userEvent.setup();
    renderApp('/');
    await plot();
    await user.click(screen.getByRole('button', { name: 'Fullscreen' }));
    await user.click(screen.getByRole('button', { name: 'Exit fullscreen' }));
    expect(card()).not.toHaveClass('chart--fullscreen');

    await user.click(screen.getByRole('button', { name: 'Fullscreen' }));
    expect(card()).toHaveClass('chart--fullscreen');
    setViewportWidth(1280);
    await waitFor(() => expect(card()).not.toHaveClass('chart--fullscreen'));
    // SPEC §2: the toggle is a phone's
    expect(screen.queryByRole('button', { name: /fullscreen/i })).not.toBeInTheDocument();
  });
});

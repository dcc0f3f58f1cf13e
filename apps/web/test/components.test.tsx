import { describe, expect, it, vi } from 'vitest';
import { fireEvent, render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { QueryClientProvider } from '@tanstack/react-query';
import { createMemoryRouter, RouterProvider } from 'react-router';
import { createQueryClient } from '../src/app/query-client';
import { RouteErrorScreen } from '../src/app/ErrorScreen';
import { ReasonButton, shiftIntoPage } from '../src/ui/ReasonButton';
import { HealthGauge } from '../src/vault/HealthGauge';
import { history, record } from './fixtures';
import { withNetworkEdge } from './network-edge';
import { renderTable } from './render-table';

vi.mock('../src/wallet', async () => (await import('./fake-wallet')).walletModule);
vi.mock('../src/wallet/controls', async () => (await import('./fake-wallet')).walletModule);

withNetworkEdge();

describe('health gauge', () => {
  const gauge = (ratio: number) =>
    render(<HealthGauge ratio={ratio} hasDebt onDeposit={() => {}} deposit={{ enabled: true }} />);

  it.each([
    [150, 'Risky', true],
    [180, 'Moderate', true],
    [220, 'Healthy', false],
  ])('puts a %i%% vault in the %s band (Deposit shortcut: %s)', (ratio, band, shortcut) => {
    gauge(ratio);
    expect(
      screen.getByRole('group', { name: `Collateral ratio ${ratio}%, ${band}` }),
    ).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Deposit to improve health' }) != null).toBe(
      shortcut,
    );
  });

  it('shows the range subtitle and You are here! when hovering the vault band', () => {
    gauge(180);
    fireEvent.mouseEnter(screen.getByRole('button', { name: 'Moderate 161% - 195%' }));
    expect(screen.getByText('You are here!')).toBeInTheDocument();
    fireEvent.mouseEnter(screen.getByRole('button', { name: 'Healthy 196% - 230%+' }));
    expect(screen.getByText(/Healthy: 196% - 230%\+/)).toBeInTheDocument();
    expect(screen.queryByText('You are here!')).not.toBeInTheDocument();
  });

  it('says why its Deposit shortcut is disabled, as the dashboard button does', () => {
    const reason = 'Disabled while a transaction is pending.';
    render(
      <HealthGauge ratio={150} hasDebt onDeposit={() => {}} deposit={{ enabled: false, reason }} />,
    );
    const shortcut = screen.getByRole('button', { name: 'Deposit to improve health' });
    expect(shortcut).toBeDisabled();
    expect(shortcut).toHaveAttribute('title', reason);
  });

  it("opens a band's info from the keyboard, with You are here! on the vault's band", async () => {
    const user = userEvent.setup();
    gauge(180);
    screen.getByRole('button', { name: 'Moderate 161% - 195%' }).focus();
    await user.keyboard('{Enter}');
    const info = await screen.findByRole('dialog', {}, { timeout: 5_000 });
    expect(info).toHaveTextContent('Moderate');
    expect(info).toHaveTextContent('161% - 195%');
    expect(info).toHaveTextContent('You are here!');
  });

  it('shows 500+% for a ratio of 500 or more', () => {
    gauge(640);
    expect(
      screen.getByRole('group', { name: 'Collateral ratio 500+%, Healthy' }),
    ).toBeInTheDocument();
  });
});

describe('transactions table', () => {
  it('groups rows by month, newest first, five rows per desktop page', async () => {
    const user = userEvent.setup();
    renderTable(history);
    await screen.findByText('Page 1 of 2');
    const groups = screen.getAllByRole('rowgroup').slice(1); // first is thead
    expect(within(groups[0]!).getByText('April 2026')).toBeInTheDocument();
    expect(within(groups[1]!).getByText('March 2026')).toBeInTheDocument();
    expect(screen.getByText('Page 1 of 2')).toBeInTheDocument();
    expect(within(groups[0]!).getAllByRole('row')).toHaveLength(1 + 4);
    expect(within(groups[1]!).getAllByRole('row')).toHaveLength(1 + 1);
    await user.click(screen.getByRole('button', { name: 'Next' }));
    expect(screen.getByText('Page 2 of 2')).toBeInTheDocument();
    expect(screen.getByText('Open Vault')).toBeInTheDocument();
    // SPEC §3: amountUnit is BTC for deposit and withdraw, otherwise UNIT
    expect(screen.getByText('Open Vault').closest('tr')).toHaveTextContent('20,000.00 UNIT');
  });

  it('sorts by amount and by date both ways', async () => {
    const user = userEvent.setup();
    renderTable(history);
    await user.click(await screen.findByRole('button', { name: /Date/ }));
    // ascending: the opening record comes first
    expect(screen.getAllByRole('row')[2]).toHaveTextContent('Open Vault');
    await user.click(screen.getByRole('button', { name: /Amount/ }));
    // Descending by USD value at each record's $95,000: 0.3 BTC ($28,500) above 20,000 UNIT, and
    // the 0.1 BTC withdrawal ($9,500) last, below 10,000 UNIT. By raw units (sats against UNIT
    // hundredths) its 10,000,000 sats would have come third. Each page groups its rows by month.
    const amounts = () =>
      screen
        .getAllByRole('row')
        .filter((r) => r.querySelectorAll('td').length > 0)
        .map((r) => r.querySelectorAll('td')[2]!.textContent);
    expect(amounts()).toEqual([
      '0.3 BTC', // April
      '20,000.00 UNIT',
      '0.3 BTC', // March
      '20,000.00 UNIT',
      '20,000.00 UNIT',
    ]);
    await user.click(screen.getByRole('button', { name: 'Next' }));
    expect(amounts()).toEqual(['10,000.00 UNIT', '0.1 BTC']);
  });

  it('colours o, r, d, x green and the others red', async () => {
    const liquidation = [
      record(8, Date.UTC(2026, 3, 20) / 1000, 'l', 100_000_000, 5_000_000, 0, 0),
      record(9, Date.UTC(2026, 3, 21) / 1000, 'x', 85_000_000, 5_000_000, 85_000_000, 5_000_000),
    ];
    renderTable([history[0]!, ...liquidation, history[1]!, history[3]!]);
    expect(await screen.findByText('Open Vault')).toHaveAttribute('data-colour', 'green');
    expect(screen.getByText('Deposit BTC')).toHaveAttribute('data-colour', 'green');
    expect(screen.getByText('Repay UNIT')).toHaveAttribute('data-colour', 'green');
    expect(screen.getByText('Liquidation Claim')).toHaveAttribute('data-colour', 'green');
    expect(screen.getByText('Vault Liquidation')).toHaveAttribute('data-colour', 'red');
  });

  it("shows an unconfirmed record as 'Finalizing...' and each health factor in its band's colour", async () => {
    const unconfirmed = { ...history[6]!, confirmed: false };
    renderTable([...history.slice(0, 6), unconfirmed]);
    await screen.findByText('Page 1 of 2');
    const row = screen.getAllByRole('row')[2]!; // the newest: the unconfirmed borrow
    expect(row).toHaveTextContent('Finalizing...');
    expect(row).not.toHaveTextContent('In Progress');
    // 1.1 BTC at 95,000 for 30,000 UNIT is 348% (Healthy); 50,000 UNIT makes it 209% (Healthy).
    // 1 BTC at 95,000 for 30,000 UNIT is 317% (Healthy); 50,000 UNIT makes it 190% (Moderate).
    const before = within(row).getByTitle('Healthy');
    expect(before).toHaveTextContent('317%');
    expect(before).toHaveClass('health--green');
    const after = within(row).getByTitle('Moderate');
    expect(after).toHaveTextContent('190%');
    expect(after).toHaveClass('health--yellow');
    // Midnight reads 00:00 on a 24-hour clock, never 24:00.
    expect(row).not.toHaveTextContent('24:00');
  });
});

describe('error screen', () => {
  it('shows the SPEC text and Try again renders the route again', async () => {
    let fail = true;
    function Flaky() {
      if (fail) throw new Error('boom');
      return <p>Recovered</p>;
    }
    const router = createMemoryRouter([
      { path: '/', element: <Flaky />, errorElement: <RouteErrorScreen /> },
    ]);
    vi.spyOn(console, 'error').mockImplementation(() => {});
    render(
      <QueryClientProvider client={createQueryClient()}>
        <RouterProvider router={router} />
      </QueryClientProvider>,
    );
    expect(await screen.findByText('Oops! Something went wrong')).toBeInTheDocument();
    expect(
      screen.getByText(
        "We've encountered an unexpected error. Our team has been notified and is working on a fix.",
      ),
    ).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Reload page' })).toBeInTheDocument();
    fail = false;
    await userEvent.setup().click(screen.getByRole('button', { name: 'Try again' }));
    expect(await screen.findByText('Recovered')).toBeInTheDocument();
  });
});

describe('a disabled button with its reason', () => {
  const REASON = 'Wait for the pending transaction to confirm.';

  it('describes the button by its reason, shown only on a tap until the focus leaves', async () => {
    const user = userEvent.setup();
    render(
      <>
        <ReasonButton enabled={false} reason={REASON} onClick={() => {}}>
          Withdraw
        </ReasonButton>
        <button type="button">Elsewhere</button>
      </>,
    );
    const button = screen.getByRole('button', { name: 'Withdraw' });
    expect(button).toBeDisabled();
    expect(button.parentElement).toHaveAccessibleDescription(REASON);
    // Hidden, the reason takes no room on the page.
    expect(screen.getByText(REASON)).not.toBeVisible();
    await user.click(button.parentElement!);
    expect(screen.getByRole('status')).toHaveTextContent(REASON);
    expect(screen.getByText(REASON)).toBeVisible();
    await user.click(screen.getByRole('button', { name: 'Elsewhere' }));
    expect(screen.getByText(REASON)).not.toBeVisible();
  });

  it.each([
    ['inside the page stays', { left: 100, right: 300 }, 0],
    ['past the right edge moves left', { left: 200, right: 460 }, -108],
    ['past the left edge moves right', { left: -60, right: 200 }, 68],
    ['wider than the page keeps its left edge in', { left: -20, right: 400 }, 28],
  ])('a reason %s', (_, box, shift) => {
    expect(shiftIntoPage(box, 360)).toBe(shift);
  });
});

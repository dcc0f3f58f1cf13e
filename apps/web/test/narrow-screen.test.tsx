// The dashboard at phone and tablet widths (SPEC §2): the transactions table's narrow layout and
// infinite scroll, the chart's fullscreen toggle, and the gauge's tap-for-info up to 1320 px.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { readFileSync } from 'node:fs';
import { http, HttpResponse } from 'msw';
import { CONTENT, type VaultHistoryRecordDto } from '@unit/protocol';
import { fakeWallet } from './fake-wallet';
import { price, record } from './fixtures';
import { withNetworkEdge } from './network-edge';
import { renderApp } from './render-app';
import { historyPages, server } from './server';
import {
  installIntersectionObserver,
  resetViewport,
  scrollIntoView,
  setViewportWidth,
} from './viewport';

vi.mock('../src/wallet', async () => (await import('./fake-wallet')).walletModule);
vi.mock('../src/wallet/controls', async () => (await import('./fake-wallet')).walletModule);

withNetworkEdge();

beforeEach(() => {
  installIntersectionObserver();
  fakeWallet.connectAs();
});
afterEach(() => {
  resetViewport();
  vi.unstubAllGlobals();
});

const answerPrice = (usd: number) =>
  server.use(http.get('*/api/bitcoin-price', () => HttpResponse.json({ ...price, USD: usd })));

describe('transactions table on a narrow screen', () => {
  /** Twelve deposits in April 2026 and seven borrows in March 2026. */
  const RECORDS: VaultHistoryRecordDto[] = [
    ...Array.from({ length: 7 }, (_, i) =>
      record(
        100 + i,
        Date.UTC(2026, 2, 1 + i) / 1000,
        'b',
        100_000_000,
        100_000 * (i + 1),
        0,
        100_000,
      ),
    ),
    ...Array.from({ length: 12 }, (_, i) =>
      record(
        200 + i,
        Date.UTC(2026, 3, 1 + i) / 1000,
        'd',
        100_000_000 + i * 1_000_000,
        700_000,
        1_000_000,
        0,
      ),
    ),
  ];

  // The columns are hidden by the stylesheet, and jsdom applies no @media rule: the test applies
  // the table's width rules itself. (Vitest hands CSS imports over empty, ?raw included, so the
  // file is read as it ships.)
  const stylesheet = readFileSync(
    `${import.meta.dirname}/../src/transactions/transactions.css`,
    'utf8',
  );
  /** The selectors the stylesheet hides (display: none) at this width, as a browser would. */
  function hiddenSelectorsAt(width: number): string[] {
    const style = document.createElement('style');
    style.textContent = stylesheet;
    document.head.append(style);
    const hidden: string[] = [];
    for (const rule of Array.from(style.sheet!.cssRules)) {
      if (!(rule instanceof CSSMediaRule)) continue;
      const max = /max-width:\s*(\d+)px/.exec(rule.media.mediaText);
      if (!max || width > Number(max[1])) continue;
      for (const inner of Array.from(rule.cssRules))
        if (inner instanceof CSSStyleRule && inner.style.display === 'none')
          hidden.push(inner.selectorText);
    }
    style.remove();
    return hidden;
  }
  const shownCells = (row: HTMLElement, hidden: string[]) =>
    Array.from(row.querySelectorAll('th, td')).filter((c) => !hidden.some((s) => c.matches(s)));
  /** a header's label, without the sort arrow */
  const label = (cell: Element) => cell.textContent!.replace(/[↑↓]/g, '').trim();

  async function renderTable(width: number) {
    setViewportWidth(width);
    server.use(http.get('*/api/vaults/:id/history', historyPages(RECORDS)));
    renderApp('/');
    const table = await screen.findByRole('table', {}, { timeout: 5_000 });
    const [, april, march] = within(table).getAllByRole('rowgroup');
    return { table, april: april!, march: march! };
  }

  it('shows every column and pages of 5 on a desktop', async () => {
    const { table } = await renderTable(1280);
    const hidden = hiddenSelectorsAt(1280);
    const head = within(table).getAllByRole('row')[0]!;
    expect(shownCells(head, hidden).map(label)).toEqual([
      'Date',
      'Type',
      'Amount',
      'Health',
      'Status',
    ]);
    expect(screen.getByText('Page 1 of 4')).toBeInTheDocument();
    expect(within(table).getAllByText('Deposit BTC')).toHaveLength(5);
    expect(within(table).queryByRole('button', { name: 'Show more' })).not.toBeInTheDocument();
  });

  it('hides the health and status columns at phone width', async () => {
    const { table, april } = await renderTable(375);
    const hidden = hiddenSelectorsAt(375);
    const head = within(table).getAllByRole('row')[0]!;
    expect(shownCells(head, hidden).map(label)).toEqual(['Date', 'Type', 'Amount']);
    const firstDeposit = within(april).getAllByText('Deposit BTC')[0]!.closest('tr')!;
    // date, type, amount: the health change and the status are the hidden cells
    expect(shownCells(firstDeposit, hidden)).toHaveLength(3);
    const cells = Array.from(firstDeposit.querySelectorAll('td'));
    expect(cells).toHaveLength(5);
    expect(cells[4]).toHaveTextContent('Completed');
    expect(shownCells(firstDeposit, hidden)).not.toContain(cells[3]);
    expect(shownCells(firstDeposit, hidden)).not.toContain(cells[4]);
  });

  it('scrolls in batches of 5 per month group instead of pages', async () => {
    const { april, march } = await renderTable(375);
    expect(
      screen.queryByRole('navigation', { name: 'Transactions pages' }),
    ).not.toBeInTheDocument();
    expect(within(april).getByText('April 2026')).toBeInTheDocument();
    expect(within(march).getByText('March 2026')).toBeInTheDocument();
    const deposits = () => within(april).getAllByText('Deposit BTC').length;
    const borrows = () => within(march).getAllByText('Borrow UNIT').length;
    expect([deposits(), borrows()]).toEqual([5, 5]);

    // The end of April scrolls into view: five more April rows, March unchanged.
    const aprilEnd = within(april).getByRole('button', { name: 'Show more' }).closest('tr')!;
    expect(scrollIntoView(aprilEnd)).toBe(1);
    expect([deposits(), borrows()]).toEqual([10, 5]);
    expect(scrollIntoView(aprilEnd)).toBe(1);
    expect([deposits(), borrows()]).toEqual([12, 5]);
    // April is complete: nothing more to load there, and nothing watches its end.
    expect(within(april).queryByRole('button', { name: 'Show more' })).not.toBeInTheDocument();
    expect(scrollIntoView(aprilEnd)).toBe(0);

    const marchEnd = within(march).getByRole('button', { name: 'Show more' }).closest('tr')!;
    scrollIntoView(marchEnd);
    expect([deposits(), borrows()]).toEqual([12, 7]);
    expect(within(march).queryByRole('button', { name: 'Show more' })).not.toBeInTheDocument();
  });
});

describe('health gauge up to 1320 px', () => {
  const moderateArc = () => screen.getByRole('button', { name: 'Moderate 161% - 195%' });
  /** The dashboard at a viewport width, once its gauge shows the fixture's 190% vault. */
  async function renderGaugeAt(width: number) {
    setViewportWidth(width);
    const user = userEvent.setup();
    renderApp('/');
    await screen.findByRole(
      'group',
      { name: /Collateral ratio 190%, Moderate/ },
      { timeout: 5_000 },
    );
    return user;
  }

  it('opens the info dialog of a tapped band at 1320 px', async () => {
    const user = await renderGaugeAt(1320);
    await user.click(moderateArc());
    const info = await screen.findByRole('dialog', { name: 'Moderate' });
    expect(info).toHaveAccessibleDescription('161% - 195%');
    // the vault is in this band
    expect(within(info).getByText(CONTENT.gauge.youAreHere)).toBeInTheDocument();

    await user.click(within(info).getByRole('button', { name: 'Close' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
    await user.click(screen.getByRole('button', { name: 'Healthy 196% - 230%+' }));
    const healthy = await screen.findByRole('dialog', { name: 'Healthy' });
    expect(healthy).toHaveAccessibleDescription('196% - 230%+');
    expect(within(healthy).queryByText(CONTENT.gauge.youAreHere)).not.toBeInTheDocument();
  });

  it('opens no dialog on a click above 1320 px, where hovering tells the range', async () => {
    const user = await renderGaugeAt(1321);
    await user.click(moderateArc());
    // the hover subtitle, not a dialog
    expect(screen.getByText(CONTENT.gauge.youAreHere)).toBeInTheDocument();
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
  });

  it.each([
    [95_000, '190%, Moderate'],
    [76_000, '152%, Risky'],
  ])(
    'offers the Deposit shortcut in the yellow and red bands, opening the deposit drawer (%i USD)',
    async (usd, label) => {
      answerPrice(usd);
      setViewportWidth(1280);
      const user = userEvent.setup();
      renderApp('/');
      await screen.findByRole('group', { name: `Collateral ratio ${label}` }, { timeout: 5_000 });
      const shortcut = await screen.findByRole('button', { name: 'Deposit to improve health' });
      await waitFor(() => expect(shortcut).toBeEnabled());
      await user.click(shortcut);
      const drawer = await screen.findByRole('dialog', {}, { timeout: 5_000 });
      expect(within(drawer).getByLabelText('Deposit amount')).toBeInTheDocument();
    },
  );

  it('offers no Deposit shortcut in the green band', async () => {
    answerPrice(110_000);
    setViewportWidth(1280);
    renderApp('/');
    await screen.findByRole(
      'group',
      { name: 'Collateral ratio 220%, Healthy' },
      { timeout: 5_000 },
    );
    // the dashboard's own Deposit is there; the gauge's shortcut is not
    await waitFor(() => expect(screen.getByRole('button', { name: 'Deposit' })).toBeEnabled());
    expect(
      screen.queryByRole('button', { name: 'Deposit to improve health' }),
    ).not.toBeInTheDocument();
  });
});

// The transactions table over a history longer than a page: pages fetched as the table needs them,
// one page refetched on a new block, month groups, health columns and sorting right across pages.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { deriveHistoryRows, formatHealth, type VaultHistoryRecordDto } from '@unit/protocol';
import { config, record } from './fixtures';
import { withNetworkEdge } from './network-edge';
import { renderTable } from './render-table';
import {
  installIntersectionObserver,
  resetViewport,
  scrollIntoView,
  setViewportWidth,
} from './viewport';

vi.mock('../src/wallet', async () => (await import('./fake-wallet')).walletModule);
vi.mock('../src/wallet/controls', async () => (await import('./fake-wallet')).walletModule);

withNetworkEdge();
beforeEach(() => installIntersectionObserver());
afterEach(() => resetViewport());

const DAY = 86_400;
const START = Date.UTC(2026, 0, 10) / 1000;

/** 47 records, one every 1.5 days from 10 January 2026: an opening, then deposits and borrows. */
function longHistory(count = 47): VaultHistoryRecordDto[] {
  const records: VaultHistoryRecordDto[] = [];
  let btc = 0;
  let debt = 0;
  for (let i = 0; i < count; i++) {
    const deposit = i % 2 === 0;
    const btcAmt = deposit ? 10_000_000 + i * 100_000 : 0;
    const unitAmt = deposit ? 0 : 100_000 + i * 1_000;
    btc += btcAmt;
    debt += unitAmt;
    records.push(
      record(
        i + 1,
        START + i * 1.5 * DAY,
        i === 0 ? 'o' : deposit ? 'd' : 'b',
        btc,
        debt,
        btcAmt,
        unitAmt,
      ),
    );
  }
  return records;
}

/** The rows the table shows: date, type, amount, health, status text of each record row. */
const shownRows = () =>
  screen
    .getAllByRole('row')
    .filter((r) => r.querySelectorAll('td').length > 0)
    .map((r) => Array.from(r.querySelectorAll('td')).map((c) => c.textContent ?? ''));

const olderRequests = (requests: URL[]) => requests.filter((u) => u.searchParams.has('before'));

describe('transactions table over many pages', () => {
  it('pages through every record once, fetching older pages only as the pager nears them', async () => {
    const records = longHistory();
    const { requests } = renderTable(records, 95_000);
    await screen.findByText('Page 1');
    // One page of 20 answers the first four desktop pages.
    expect(requests).toHaveLength(1);
    expect(requests[0]!.searchParams.get('limit')).toBe('20');
    expect(screen.getByRole('navigation', { name: 'Transactions pages' })).not.toHaveTextContent(
      'of',
    );

    const user = userEvent.setup();
    const seen: string[][] = [...shownRows()];
    const headings = new Set(screen.getAllByRole('rowheader').map((h) => h.textContent));
    for (let page = 2; page <= 10; page++) {
      await user.click(screen.getByRole('button', { name: 'Next' }));
      await waitFor(() =>
        expect(screen.getByText(new RegExp(`^Page ${page}`))).toBeInTheDocument(),
      );
      seen.push(...shownRows());
      for (const h of screen.getAllByRole('rowheader')) headings.add(h.textContent);
    }
    expect(screen.getByText('Page 10 of 10')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Next' })).toBeDisabled();
    // Three older pages (20 + 7 records), each asked for once, from where the last one ended.
    expect(olderRequests(requests).map((u) => u.searchParams.get('before'))).toEqual([
      records[27]!.transaction_id,
      records[7]!.transaction_id,
    ]);

    // Every record once, newest first, with the health the whole history gives it: the oldest
    // row of each page starts from the state of the record on the next page.
    const reference = deriveHistoryRows(records, () => 95_000, 95_000);
    expect(seen).toHaveLength(47);
    seen.forEach((cells, i) => {
      const row = reference[i]!;
      const health =
        row.type === 'o'
          ? formatHealth(row.healthFactorAfter)
          : `${formatHealth(row.healthFactorBefore)} → ${formatHealth(row.healthFactorAfter)}`;
      expect({ i, type: cells[1], health: cells[3] }).toEqual({ i, type: row.typeLabel, health });
    });
    expect([...headings]).toEqual(['March 2026', 'February 2026', 'January 2026']);
  });

  it('refetches only the newest page on a new block', async () => {
    const records = longHistory();
    const live = [...records];
    const { requests, queryClient } = renderTable(() => live, 95_000);
    await screen.findByText('Page 1');
    const user = userEvent.setup();
    for (let page = 2; page <= 5; page++) {
      await user.click(screen.getByRole('button', { name: 'Next' }));
    }
    await waitFor(() => expect(olderRequests(requests)).toHaveLength(1));
    const before = requests.length;

    // A block: a new borrow at the newest end.
    live.push(record(99, START + 80 * DAY, 'b', 1, 1, 0, 5_000_000));
    await act(() => queryClient.invalidateQueries({ queryKey: ['vault-history'] }));
    await waitFor(() => expect(requests.length).toBe(before + 1));
    expect(requests.at(-1)!.searchParams.has('before')).toBe(false);
    // Back on page 1, the new record leads; nothing is shown twice.
    for (let page = 4; page >= 1; page--) {
      await user.click(screen.getByRole('button', { name: 'Previous' }));
    }
    expect(shownRows()[0]![2]).toBe('50,000.00 UNIT');
    expect(requests.length).toBe(before + 1);
  });

  it('sorts by amount across every page, by USD value', async () => {
    const records = longHistory();
    const { requests } = renderTable(records, 95_000);
    await screen.findByText('Page 1');
    const user = userEvent.setup();
    await user.click(screen.getByRole('button', { name: /Amount/ }));
    // Sorting needs every record: the older pages are fetched until none is left.
    await waitFor(() => expect(screen.getByText('Page 1 of 10')).toBeInTheDocument());
    expect(olderRequests(requests)).toHaveLength(2);
    // The largest is the last deposit: 0.146 BTC at $95,000 ($13,870), above any borrow (≤ $1,450).
    expect(shownRows()[0]![2]).toBe('0.146 BTC');
  });

  it('links each row to its transaction in the explorer', async () => {
    const records = longHistory(3);
    renderTable(records, 95_000);
    const link = await screen.findByRole('link', { name: /Jan 13.*view transaction/ });
    expect(link).toHaveAttribute(
      'href',
      `${config.explorerUrl.replace(/\/+$/, '')}/tx/${records[2]!.transaction_id}`,
    );
    expect(link).toHaveAttribute('target', '_blank');
  });

  it('loads older records on a phone when the end of the list scrolls into view', async () => {
    setViewportWidth(375);
    const records = longHistory();
    const { requests } = renderTable(records, 95_000);
    const more = await screen.findByRole('button', { name: 'Load older transactions' });
    expect(requests).toHaveLength(1);
    expect(scrollIntoView(more.parentElement!)).toBe(1);
    await waitFor(() => expect(olderRequests(requests)).toHaveLength(1));
    const table = screen.getByRole('table');
    await waitFor(() =>
      expect(
        within(table)
          .getAllByRole('rowgroup')
          .map((g) => g.querySelector('th')?.textContent),
      ).toContain('January 2026'),
    );
  });
});

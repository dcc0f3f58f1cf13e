import { useEffect, useRef, useState } from 'react';
import type { VaultHistoryRecordDto } from '@unit/protocol';
import {
  deriveHistoryRows,
  formatBtc,
  formatHealth,
  formatHundredths,
  groupByMonth,
  type HistoryRow,
  type PendingTx,
} from '../protocol-gaps';
import { MOBILE_QUERY, useMediaQuery } from '../ui/useMediaQuery';
import { Skeleton } from '../ui/Skeleton';
import './transactions.css';

const rowDate = new Intl.DateTimeFormat('en-US', {
  month: 'short',
  day: 'numeric',
  hour: '2-digit',
  minute: '2-digit',
  hour12: false,
});

export type SortKey = 'date' | 'status' | 'amount';
export const PAGE_SIZE = 5; // SPEC §2: desktop pages of 5 rows; mobile batches of 5 per month group

export function sortRows(rows: HistoryRow[], key: SortKey, descending: boolean): HistoryRow[] {
  const sign = descending ? -1 : 1;
  const compare = (a: HistoryRow, b: HistoryRow): number => {
    if (key === 'status') return a.status.localeCompare(b.status) || b.date - a.date;
    if (key === 'amount') return a.amount === b.amount ? 0 : a.amount < b.amount ? -1 : 1;
    return a.date - b.date;
  };
  return [...rows].sort((a, b) => sign * compare(a, b));
}

const amountText = (r: HistoryRow) =>
  r.amountUnit === 'BTC' ? `${formatBtc(r.amount)} BTC` : `${formatHundredths(r.amount)} UNIT`;

/** The vault transactions table (SPEC §2): grouped by month, sortable, paged or scrolled. */
export function TransactionsTable(props: {
  records: VaultHistoryRecordDto[] | undefined;
  loading: boolean;
  error: boolean;
  pending?: PendingTx[];
}) {
  const mobile = useMediaQuery(MOBILE_QUERY);
  const [sort, setSort] = useState<{ key: SortKey; descending: boolean }>({
    key: 'date',
    descending: true,
  });
  const [page, setPage] = useState(0);
  const rows = sortRows(deriveHistoryRows(props.records ?? []), sort.key, sort.descending);
  const pageCount = Math.max(1, Math.ceil(rows.length / PAGE_SIZE));
  const safePage = Math.min(page, pageCount - 1);

  const header = (key: SortKey, label: string, className = '') => (
    <th
      scope="col"
      className={className}
      aria-sort={sort.key === key ? (sort.descending ? 'descending' : 'ascending') : 'none'}
    >
      <button
        type="button"
        className="sort-btn"
        onClick={() => {
          setSort((s) => ({ key, descending: s.key === key ? !s.descending : true }));
          setPage(0);
        }}
      >
        {label}
        <span aria-hidden="true">{sort.key === key ? (sort.descending ? ' ↓' : ' ↑') : ''}</span>
      </button>
    </th>
  );

  return (
    <section className="card transactions" aria-labelledby="tx-title">
      <h2 id="tx-title" className="card__title">
        Vault transactions
      </h2>
      {props.loading ? (
        <div role="status" aria-label="Loading transactions">
          {Array.from({ length: PAGE_SIZE }, (_, i) => (
            <Skeleton key={i} height="2.5rem" />
          ))}
        </div>
      ) : props.error ? (
        <p className="muted" role="alert">
          Transactions could not be loaded.
        </p>
      ) : rows.length === 0 ? (
        <p className="muted">No transactions yet.</p>
      ) : (
        <>
          <table className="tx-table">
            <thead>
              <tr>
                {header('date', 'Date')}
                <th scope="col">Type</th>
                {header('amount', 'Amount')}
                <th scope="col" className="col-wide">
                  Health
                </th>
                {header('status', 'Status', 'col-wide')}
              </tr>
            </thead>
            {mobile
              ? groupByMonth(rows).map((g) => (
                  <MobileGroup key={g.month} month={g.month} rows={g.rows} />
                ))
              : groupByMonth(rows.slice(safePage * PAGE_SIZE, (safePage + 1) * PAGE_SIZE)).map(
                  (g) => (
                    <tbody key={g.month}>
                      <MonthRow month={g.month} />
                      {g.rows.map((r) => (
                        <Row key={r.transactionId + r.code} row={r} />
                      ))}
                    </tbody>
                  ),
                )}
          </table>
          {!mobile && pageCount > 1 && (
            <nav className="pager" aria-label="Transactions pages">
              <button
                type="button"
                className="btn btn--small"
                disabled={safePage === 0}
                onClick={() => setPage(safePage - 1)}
              >
                Previous
              </button>
              <span>
                Page {safePage + 1} of {pageCount}
              </span>
              <button
                type="button"
                className="btn btn--small"
                disabled={safePage >= pageCount - 1}
                onClick={() => setPage(safePage + 1)}
              >
                Next
              </button>
            </nav>
          )}
        </>
      )}
    </section>
  );
}

function MonthRow({ month }: { month: string }) {
  return (
    <tr className="month-row">
      <th colSpan={5} scope="rowgroup">
        {month}
      </th>
    </tr>
  );
}

function Row({ row }: { row: HistoryRow }) {
  return (
    <tr>
      <td className="num">{rowDate.format(new Date(row.date * 1000))}</td>
      <td>
        <span className={`tx-type tx-type--${row.colour}`} data-colour={row.colour}>
          {row.type}
        </span>
      </td>
      <td className="num">{amountText(row)}</td>
      <td className="col-wide num">
        {row.code === 'o'
          ? formatHealth(row.healthAfter)
          : `${formatHealth(row.healthBefore)} → ${formatHealth(row.healthAfter)}`}
      </td>
      <td className="col-wide">{row.status}</td>
    </tr>
  );
}

/** Mobile: batches of 5 per month group, the next batch when the group's end scrolls into view. */
function MobileGroup({ month, rows }: { month: string; rows: HistoryRow[] }) {
  const [shown, setShown] = useState(PAGE_SIZE);
  const sentinel = useRef<HTMLTableRowElement>(null);
  const more = shown < rows.length;
  useEffect(() => {
    const el = sentinel.current;
    if (!el || !more || typeof IntersectionObserver === 'undefined') return;
    const io = new IntersectionObserver((entries) => {
      if (entries.some((e) => e.isIntersecting)) setShown((n) => n + PAGE_SIZE);
    });
    io.observe(el);
    return () => io.disconnect();
  }, [more]);
  return (
    <tbody>
      <MonthRow month={month} />
      {rows.slice(0, shown).map((r) => (
        <Row key={r.transactionId + r.code} row={r} />
      ))}
      {more && (
        <tr ref={sentinel}>
          <td colSpan={5}>
            <button
              type="button"
              className="btn btn--small"
              onClick={() => setShown((n) => n + PAGE_SIZE)}
            >
              Show more
            </button>
          </td>
        </tr>
      )}
    </tbody>
  );
}

import { useEffect, useRef, useState } from 'react';
import {
  ACTION_COLOURS,
  actionOfCode,
  TRANSACTIONS_MOBILE_BATCH,
  TRANSACTIONS_PAGE_SIZE,
  deriveHistoryRows,
  formatHealth,
  PENDING_STATUS_LABELS,
  groupByMonth,
  paginate,
  sortRows,
  TXID_ROLE_LABELS,
  type HistoryRow,
  type PriceInput,
  type SortDirection,
  type SortKey,
  type VaultHistoryRecordDto,
  type VaultStateDto,
} from '@unit/protocol';
import { useConfig } from '../api/config';
import { useVaultHistoryPages } from '../api/vault-history';
import { SpeedUpButton } from '../flows/SpeedUpButton';
import { HistoryCsvLink } from './HistoryCsvLink';
import { formatAmount } from '../ui/format';
import { MOBILE_QUERY, useMediaQuery } from '../ui/useMediaQuery';
import { Skeleton } from '../ui/Skeleton';
import './transactions.css';

const rowDate = new Intl.DateTimeFormat('en-US', {
  month: 'short',
  day: 'numeric',
  hour: '2-digit',
  minute: '2-digit',
  hourCycle: 'h23',
});

/**
 * Sorting on anything but newest-first needs the records the server has not sent yet: the table
 * loads pages up to this many records for it, and says so when the history is longer.
 */
export const SORT_LOAD_LIMIT = 500;

/** Each record is priced at its own oracle price (SPEC §8: an invalid one falls back to the current). */
function historyRows(
  records: VaultHistoryRecordDto[],
  currentPriceUsd: PriceInput,
  stateBefore: VaultStateDto | null,
): HistoryRow[] {
  const priceAt = new Map(records.map((r) => [r.timestamp, r.oracle_price]));
  return deriveHistoryRows(records, (t) => priceAt.get(t), currentPriceUsd, stateBefore);
}

/**
 * The vault transactions table (SPEC §2): grouped by month, sortable, paged or scrolled. The
 * history arrives in pages (api/vault-history.ts), fetched as the table needs them: the next one
 * when the desktop pager nears the last loaded rows or the phone's list scrolls to its end.
 */
export function TransactionsTable(props: {
  vaultId: string;
  /** the current price, for records whose own price is missing or invalid */
  priceUsd?: PriceInput;
}) {
  const mobile = useMediaQuery(MOBILE_QUERY);
  const history = useVaultHistoryPages(props.vaultId);
  const [sort, setSort] = useState<{ key: SortKey; direction: SortDirection }>({
    key: 'date',
    direction: 'desc',
  });
  const [page, setPage] = useState(1);
  const rows = sortRows(
    historyRows(history.records, props.priceUsd, history.stateBefore),
    sort.key,
    sort.direction,
  );
  const current = paginate(rows, page);
  const serverOrder = sort.key === 'date' && sort.direction === 'desc';
  const { hasMore, loadingMore, loadMore } = history;
  const loaded = history.records.length;
  // Newest first is the server's order: the next page is needed only near the end of the loaded
  // rows. Any other order needs every record, up to SORT_LOAD_LIMIT.
  const wanted = serverOrder
    ? mobile
      ? 0
      : current.page * TRANSACTIONS_PAGE_SIZE
    : SORT_LOAD_LIMIT;
  useEffect(() => {
    if (hasMore && !loadingMore && loaded < wanted + TRANSACTIONS_PAGE_SIZE) loadMore();
  }, [hasMore, loadingMore, loaded, wanted, loadMore]);
  const partialSort = !serverOrder && hasMore && loaded >= SORT_LOAD_LIMIT;

  const header = (key: SortKey, label: string, className = '') => (
    <th
      scope="col"
      className={className}
      aria-sort={
        sort.key === key ? (sort.direction === 'desc' ? 'descending' : 'ascending') : 'none'
      }
    >
      <button
        type="button"
        className="sort-btn"
        onClick={() => {
          setSort((s) => ({
            key,
            direction: s.key === key && s.direction === 'desc' ? 'asc' : 'desc',
          }));
          setPage(1);
        }}
      >
        {label}
        <span aria-hidden="true">
          {sort.key === key ? (sort.direction === 'desc' ? ' ↓' : ' ↑') : ''}
        </span>
      </button>
    </th>
  );

  return (
    <section className="card transactions" aria-labelledby="tx-title">
      <div className="transactions__head">
        <h2 id="tx-title" className="card__title">
          Vault transactions
        </h2>
        <HistoryCsvLink vaultId={props.vaultId} />
      </div>
      {history.isPending ? (
        <div role="status" aria-label="Loading transactions">
          {Array.from({ length: TRANSACTIONS_PAGE_SIZE }, (_, i) => (
            <Skeleton key={i} height="2.5rem" />
          ))}
        </div>
      ) : history.isError ? (
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
                  <MobileGroup key={g.heading} month={g.heading} rows={g.rows} />
                ))
              : groupByMonth(current.rows).map((g) => (
                  <tbody key={g.heading}>
                    <MonthRow month={g.heading} />
                    {g.rows.map((r) => (
                      <Row key={r.transactionId + r.type} row={r} />
                    ))}
                  </tbody>
                ))}
          </table>
          {partialSort && (
            <p className="muted tx-note">
              Sorted among the latest {loaded.toLocaleString('en-US')} transactions.
            </p>
          )}
          {mobile && hasMore && <LoadMoreRow loading={loadingMore} onLoad={loadMore} />}
          {!mobile && (current.pageCount > 1 || hasMore) && (
            <nav className="pager" aria-label="Transactions pages">
              <button
                type="button"
                className="btn btn--small"
                disabled={current.page === 1}
                onClick={() => setPage(current.page - 1)}
              >
                Previous
              </button>
              <span>
                Page {current.page}
                {hasMore ? '' : ` of ${current.pageCount}`}
              </span>
              <button
                type="button"
                className="btn btn--small"
                // Past the loaded rows the page shows once its records arrive (paginate clamps).
                disabled={current.page >= current.pageCount && !hasMore}
                onClick={() => setPage(current.page + 1)}
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
  const { explorerUrl } = useConfig();
  const date = rowDate.format(new Date(row.date * 1000));
  const claimed = row.txidRole === 'claimed-output';
  return (
    <tr>
      <td className="num">
        <a
          className="tx-link"
          href={`${explorerUrl.replace(/\/+$/, '')}/tx/${row.transactionId}`}
          target="_blank"
          rel="noreferrer"
          aria-label={
            claimed
              ? `${date}: view the vault output being claimed in the explorer`
              : `${date}: view transaction in the explorer`
          }
        >
          {date}
        </a>
      </td>
      <td>
        <span
          className={`tx-type tx-type--${ACTION_COLOURS[row.type]}`}
          data-colour={ACTION_COLOURS[row.type]}
        >
          {row.typeLabel}
        </span>
        {/* a liquidation has no transaction of its own: its link is the output claimants spend */}
        {claimed && (
          <span className="tx-note muted">
            The date links to {TXID_ROLE_LABELS['claimed-output'].toLowerCase()}.
          </span>
        )}
      </td>
      <td className="num">{formatAmount(row.amount, row.amountUnit)}</td>
      <td className="col-wide num">
        {row.type !== 'o' && (
          <>
            <Health ratio={row.healthFactorBefore} status={row.healthStatusBefore} /> →{' '}
          </>
        )}
        <Health ratio={row.healthFactorAfter} status={row.healthStatusAfter} />
      </td>
      <td className="col-wide">
        {PENDING_STATUS_LABELS[row.status]}{' '}
        {row.status === 'In Progress' && (
          <SpeedUpButton
            txid={row.transactionId}
            action={actionOfCode(row.type)}
            sentAt={row.date}
          />
        )}
      </td>
    </tr>
  );
}

/** SPEC §3: a health factor with its status text (as its title) and colour. */
function Health({ ratio, status }: { ratio: number; status: HistoryRow['healthStatusAfter'] }) {
  return (
    <span className={`health health--${status.colour}`} title={status.text || undefined}>
      {formatHealth(ratio)}
    </span>
  );
}

/** Mobile: batches of 5 per month group, the next batch when the group's end scrolls into view. */
function MobileGroup({ month, rows }: { month: string; rows: HistoryRow[] }) {
  const [shown, setShown] = useState(TRANSACTIONS_MOBILE_BATCH);
  const sentinel = useRef<HTMLTableRowElement>(null);
  const more = shown < rows.length;
  useEffect(() => {
    const el = sentinel.current;
    if (!el || !more || typeof IntersectionObserver === 'undefined') return;
    const io = new IntersectionObserver((entries) => {
      if (entries.some((e) => e.isIntersecting)) setShown((n) => n + TRANSACTIONS_MOBILE_BATCH);
    });
    io.observe(el);
    return () => io.disconnect();
  }, [more]);
  return (
    <tbody>
      <MonthRow month={month} />
      {rows.slice(0, shown).map((r) => (
        <Row key={r.transactionId + r.type} row={r} />
      ))}
      {more && (
        <tr ref={sentinel}>
          <td colSpan={5}>
            <button
              type="button"
              className="btn btn--small"
              onClick={() => setShown((n) => n + TRANSACTIONS_MOBILE_BATCH)}
            >
              Show more
            </button>
          </td>
        </tr>
      )}
    </tbody>
  );
}

/** Phones: the next page of history loads when the end of the list scrolls into view. */
function LoadMoreRow({ loading, onLoad }: { loading: boolean; onLoad: () => void }) {
  const sentinel = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = sentinel.current;
    if (!el || typeof IntersectionObserver === 'undefined') return;
    const io = new IntersectionObserver((entries) => {
      if (entries.some((e) => e.isIntersecting)) onLoad();
    });
    io.observe(el);
    return () => io.disconnect();
  }, [onLoad]);
  return (
    <div ref={sentinel} className="tx-more">
      <button type="button" className="btn btn--small" disabled={loading} onClick={onLoad}>
        {loading ? 'Loading…' : 'Load older transactions'}
      </button>
    </div>
  );
}

// Vault transactions table (SPEC §2): month groups headed 'MMMM yyyy', sorting on date, status and
// amount, desktop pages of 5 rows.
import { TRANSACTIONS_PAGE_SIZE } from './constants';

export interface TableRow {
  /** unix seconds */
  date: number;
  status: string;
  /** what the amount was worth, in USD cents; null when unknown (sorted last either way) */
  amountUsdCents: bigint | null;
}

export interface MonthGroup<R> {
  /** 'March 2025' */
  heading: string;
  rows: R[];
}

const monthFormats = new Map<string, Intl.DateTimeFormat>();

function monthFormat(timeZone: string | undefined): Intl.DateTimeFormat {
  const key = timeZone ?? '';
  let format = monthFormats.get(key);
  if (!format) {
    format = new Intl.DateTimeFormat('en-US', { month: 'long', year: 'numeric', timeZone });
    monthFormats.set(key, format);
  }
  return format;
}

/** 'MMMM yyyy' of a unix-seconds date in en-US, e.g. 'March 2025'. */
export function monthHeading(dateSeconds: number, timeZone?: string): string {
  return monthFormat(timeZone).format(new Date(dateSeconds * 1000));
}

/** Groups rows by month in the order given (sort first); one group per month heading. */
export function groupByMonth<R extends Pick<TableRow, 'date'>>(
  rows: readonly R[],
  timeZone?: string,
): MonthGroup<R>[] {
  const groups: MonthGroup<R>[] = [];
  const byHeading = new Map<string, MonthGroup<R>>();
  for (const row of rows) {
    const heading = monthHeading(row.date, timeZone);
    let group = byHeading.get(heading);
    if (!group) {
      group = { heading, rows: [] };
      byHeading.set(heading, group);
      groups.push(group);
    }
    group.rows.push(row);
  }
  return groups;
}

export type SortKey = 'date' | 'status' | 'amount';
export type SortDirection = 'asc' | 'desc';

/**
 * A sorted copy; ties keep their order (Array.prototype.sort is stable). Amounts compare by their
 * USD value: a row's amount is sats or UNIT hundredths, which do not compare with each other.
 */
export function sortRows<R extends TableRow>(
  rows: readonly R[],
  key: SortKey,
  direction: SortDirection = 'desc',
): R[] {
  const sign = direction === 'asc' ? 1 : -1;
  const compare = (a: R, b: R): number => {
    switch (key) {
      case 'date':
        return sign * (a.date - b.date);
      case 'status':
        return sign * a.status.localeCompare(b.status);
      case 'amount': {
        const [x, y] = [a.amountUsdCents, b.amountUsdCents];
        if (x === null || y === null) return x === y ? 0 : x === null ? 1 : -1;
        return sign * (x < y ? -1 : x > y ? 1 : 0);
      }
    }
  };
  return [...rows].sort(compare);
}

export interface Page<R> {
  rows: R[];
  /** 1-based, clamped into range */
  page: number;
  pageCount: number;
}

/** Desktop paging: 5 rows a page (SPEC §2); an out-of-range page is clamped. */
export function paginate<R>(
  rows: readonly R[],
  page: number,
  pageSize: number = TRANSACTIONS_PAGE_SIZE,
): Page<R> {
  const pageCount = Math.max(1, Math.ceil(rows.length / pageSize));
  const current = Math.min(pageCount, Math.max(1, Math.floor(page)));
  const start = (current - 1) * pageSize;
  return { rows: rows.slice(start, start + pageSize), page: current, pageCount };
}

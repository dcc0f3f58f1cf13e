import { describe, expect, it } from 'vitest';
import { groupByMonth, monthHeading, paginate, sortRows } from './table';

const day = 86_400;
// 2025-03-31T12:00Z, 2025-04-01T12:00Z, 2025-04-15T12:00Z
const rows = [
  { date: 1_743_422_400, status: 'Completed', amountUsdCents: 300n },
  { date: 1_743_422_400 + day, status: 'In Progress', amountUsdCents: 100n },
  { date: 1_743_422_400 + 15 * day, status: 'Completed', amountUsdCents: 200n },
];

describe('transactions table', () => {
  it('heads months as MMMM yyyy in en-US', () => {
    expect(monthHeading(rows[0]!.date, 'UTC')).toBe('March 2025');
    expect(monthHeading(rows[1]!.date, 'UTC')).toBe('April 2025');
  });
  it('groups rows by month in the given order', () => {
    const groups = groupByMonth(sortRows(rows, 'date', 'desc'), 'UTC');
    expect(groups.map((g) => g.heading)).toEqual(['April 2025', 'March 2025']);
    expect(groups[0]!.rows.map((r) => r.amountUsdCents)).toEqual([200n, 100n]);
  });
  it('sorts on date, status and amount in both directions', () => {
    const amounts = (r: { amountUsdCents: bigint | null }) => r.amountUsdCents;
    expect(sortRows(rows, 'amount', 'asc').map(amounts)).toEqual([100n, 200n, 300n]);
    expect(sortRows(rows, 'amount', 'desc').map(amounts)).toEqual([300n, 200n, 100n]);
    expect(sortRows(rows, 'status', 'asc').map((r) => r.status)).toEqual([
      'Completed',
      'Completed',
      'In Progress',
    ]);
    expect(sortRows(rows, 'date', 'asc')[0]).toBe(rows[0]);
  });
  it('puts amounts of unknown value last in both directions', () => {
    const unknown = { date: 0, status: 'Completed', amountUsdCents: null };
    const withUnknown = [unknown, ...rows];
    const amounts = (r: { amountUsdCents: bigint | null }) => r.amountUsdCents;
    expect(sortRows(withUnknown, 'amount', 'asc').map(amounts)).toEqual([100n, 200n, 300n, null]);
    expect(sortRows(withUnknown, 'amount', 'desc').map(amounts)).toEqual([300n, 200n, 100n, null]);
  });
  it('pages 5 rows at a time and clamps the page', () => {
    const many = Array.from({ length: 12 }, (_, i) => i);
    expect(paginate(many, 1)).toEqual({ rows: [0, 1, 2, 3, 4], page: 1, pageCount: 3 });
    expect(paginate(many, 3)).toEqual({ rows: [10, 11], page: 3, pageCount: 3 });
    expect(paginate(many, 9).page).toBe(3);
    expect(paginate([], 1)).toEqual({ rows: [], page: 1, pageCount: 1 });
  });
});

// The vault's history as CSV (GET /api/vaults/:id/history.csv): one line per history record, oldest
// first, with the figures of the derived history row (SPEC §3) written for a spreadsheet: plain
// decimals without thousands separators, dates in ISO 8601 UTC, RFC 4180 quoting.
import { TXID_ROLE_LABELS, type HistoryRow } from './history';
import { centsToUnitString, satsToBtcString } from './units';

export const HISTORY_CSV_HEADER: readonly string[] = [
  'Date (UTC)',
  'Action',
  // One numeric column per unit ('20000.00 UNIT' in one cell could not be summed).
  'Amount (BTC)',
  'Amount (UNIT)',
  'BTC in vault',
  'UNIT debt',
  'BTC price (USD)',
  'Ratio before (%)',
  'Ratio after (%)',
  'Transaction ID',
  'Explorer URL',
  // A liquidation's id is the vault output it opens to claimants, not a transaction of its own.
  'Transaction ID refers to',
];

/**
 * One CSV cell. A spreadsheet runs a cell that starts with = + - @ (or a tab or carriage return)
 * as a formula (OWASP "CSV injection"): such a cell is prefixed with a quote mark so it stays text.
 * Every cell is then quoted when it holds a comma, a quote or a line break (RFC 4180).
 */
export function csvCell(value: string): string {
  // One test for the common cell that needs neither (every cell of every line is passed here).
  if (!NEEDS_CARE.test(value)) return value;
  const safe = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(safe) ? `"${safe.replaceAll('"', '""')}"` : safe;
}

const NEEDS_CARE = /^[=+\-@\t\r]|[",\r\n]/;

/** A CSV line of cells, ended by CRLF (RFC 4180). */
export function csvLine(cells: readonly string[]): string {
  return `${cells.map(csvCell).join(',')}\r\n`;
}

/** ISO 8601 UTC to the second: 2026-11-23T15:04:05Z. */
export function isoUtc(unixSeconds: number): string {
  const iso = new Date(unixSeconds * 1000).toISOString();
  // YYYY-MM-DDTHH:mm:ss.sssZ for years 0 to 9999; a six-digit year keeps the general rule.
  return iso.length === 24 ? `${iso.slice(0, 19)}Z` : iso.replace(/\.\d{3}Z$/, 'Z');
}

/** A ratio in whole percent; empty with no debt (Infinity) or no known price (NaN). */
const ratioCell = (ratio: number): string => (Number.isFinite(ratio) ? String(ratio) : '');

const unitCell = (cents: bigint): string => centsToUnitString(cents).replaceAll(',', '');

/** The cells of one derived history row; `explorerTxUrl` is the explorer's page of its txid. */
export function historyCsvCells(row: HistoryRow, explorerTxUrl: string): string[] {
  return [
    isoUtc(row.date),
    row.typeLabel,
    row.amountUnit === 'BTC' ? satsToBtcString(row.amount) : '',
    row.amountUnit === 'UNIT' ? unitCell(row.amount) : '',
    satsToBtcString(row.btcInVault),
    unitCell(row.unitInVault),
    Number.isFinite(row.bitcoinPrice) ? String(row.bitcoinPrice) : '',
    ratioCell(row.healthFactorBefore),
    ratioCell(row.healthFactorAfter),
    row.transactionId,
    explorerTxUrl,
    TXID_ROLE_LABELS[row.txidRole],
  ];
}

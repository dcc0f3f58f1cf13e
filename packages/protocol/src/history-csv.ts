// The vault's history as CSV (GET /api/vaults/:id/history.csv): one line per history record, oldest
// first, with the figures of the derived history row (SPEC §3) written for a spreadsheet: plain
// decimals without thousands separators, dates in ISO 8601 UTC, RFC 4180 quoting.
import { TXID_ROLE_LABELS, type HistoryRow } from './history';
import { centsToPlainUnitString, satsToBtcString } from './units';

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
  let line = '';
  for (let i = 0; i < cells.length; i++) line += (i === 0 ? '' : ',') + csvCell(cells[i]!);
  return `${line}\r\n`;
}

const DAY_SECONDS = 86_400;
/** The day isoUtc wrote last ('YYYY-MM-DDT', from its first second): a history's records share days. */
const lastDay = { start: Number.NaN, text: '' };
const two = (n: number) => (n < 10 ? `0${n}` : String(n));

/** ISO 8601 UTC to the second: 2026-11-23T15:04:05Z. */
export function isoUtc(unixSeconds: number): string {
  const second = unixSeconds - lastDay.start;
  // A UTC day in JavaScript's calendar is 86,400 seconds (no leap seconds).
  if (Number.isInteger(second) && second >= 0 && second < DAY_SECONDS)
    return `${lastDay.text}${two(Math.floor(second / 3600))}:${two(Math.floor(second / 60) % 60)}:${two(second % 60)}Z`; // prettier-ignore
  const iso = new Date(unixSeconds * 1000).toISOString();
  // YYYY-MM-DDTHH:mm:ss.sssZ for years 0 to 9999; a six-digit year keeps the general rule.
  if (iso.length !== 24) return iso.replace(/\.\d{3}Z$/, 'Z');
  if (Number.isInteger(unixSeconds)) {
    lastDay.start = unixSeconds - (((unixSeconds % DAY_SECONDS) + DAY_SECONDS) % DAY_SECONDS);
    lastDay.text = iso.slice(0, 11);
  }
  return `${iso.slice(0, 19)}Z`;
}

/** A ratio in whole percent; empty with no debt (Infinity) or no known price (NaN). */
const ratioCell = (ratio: number): string => (Number.isFinite(ratio) ? String(ratio) : '');

const unitCell = (cents: bigint): string => centsToPlainUnitString(cents);

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

// Money as integers (SPEC §9): sats and UNIT hundredths are bigint brands so a function that takes
// sats cannot be handed UNIT; prices are USD numbers and become integer cents before any math.
import {
  BTC_DECIMALS,
  SATS_PER_BTC,
  UNIT_CENTS_PER_UNIT,
  UNIT_DECIMALS,
  USD_DECIMALS,
} from './constants';

declare const brand: unique symbol;
type Brand<T, B extends string> = T & { readonly [brand]: B };

export type Sats = Brand<bigint, 'Sats'>;
/** Hundredths of UNIT (one rune unit, divisibility 2). */
export type UnitCents = Brand<bigint, 'UnitCents'>;
/** A USD price or value; may be fractional, never used for balances. */
export type Usd = Brand<number, 'Usd'>;
/** A percentage such as a collateral ratio (160 means 160%). */
export type Percent = Brand<number, 'Percent'>;

/** Sats as branded bigint, or as the JSON number of a wire DTO. */
export type SatsInput = Sats | number;
/** UNIT hundredths as branded bigint, or as the JSON number of a wire DTO. */
export type UnitCentsInput = UnitCents | number;
/** A price that may be missing or broken: every such value counts as "unknown". */
export type PriceInput = number | null | undefined;

function toInteger(n: number | bigint | string, what: string): bigint {
  if (typeof n === 'bigint') return n;
  if (typeof n === 'number') {
    if (!Number.isSafeInteger(n)) throw new RangeError(`${what} must be a safe integer, got ${n}`);
    return BigInt(n);
  }
  if (!/^-?\d+$/.test(n.trim())) throw new RangeError(`${what} must be an integer, got '${n}'`);
  return BigInt(n.trim());
}

export function sats(n: number | bigint | string): Sats {
  return toInteger(n, 'sats') as Sats;
}

export function unitCents(n: number | bigint | string): UnitCents {
  return toInteger(n, 'UNIT hundredths') as UnitCents;
}

export function usd(n: number): Usd {
  return n as Usd;
}

export function percent(n: number): Percent {
  return n as Percent;
}

/** A JSON-safe number of sats or hundredths (wire DTOs); throws past 2^53. */
export function toWireNumber(n: bigint): number {
  if (n > BigInt(Number.MAX_SAFE_INTEGER) || n < BigInt(Number.MIN_SAFE_INTEGER)) {
    throw new RangeError(`${n} does not fit a JSON number`);
  }
  return Number(n);
}

/** True when a price can be used: a finite number above zero. */
export function isKnownPrice(price: PriceInput): price is number {
  return typeof price === 'number' && Number.isFinite(price) && price > 0;
}

/** USD price to integer cents (rounded), or null when the price is unknown. */
export function priceToCents(price: PriceInput): bigint | null {
  if (!isKnownPrice(price)) return null;
  const cents = BigInt(Math.round(price * 100));
  return cents > 0n ? cents : null;
}

function formatFixed(value: bigint, decimals: number): { sign: string; int: string; frac: string } {
  const sign = value < 0n ? '-' : '';
  const abs = value < 0n ? -value : value;
  const scale = 10n ** BigInt(decimals);
  return {
    sign,
    int: (abs / scale).toString(),
    frac: (abs % scale).toString().padStart(decimals, '0'),
  };
}

function groupThousands(int: string): string {
  return int.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

/** Sats to a BTC string with up to 8 decimals and no trailing zeros: 150000000 -> '1.5'. */
export function satsToBtcString(
  amount: SatsInput | bigint,
  opts: { minDecimals?: number } = {},
): string {
  const { sign, int, frac } = formatFixed(toInteger(amount, 'sats'), BTC_DECIMALS);
  let trimmed = frac.replace(/0+$/, '');
  const min = Math.min(opts.minDecimals ?? 0, BTC_DECIMALS);
  if (trimmed.length < min) trimmed = frac.slice(0, min);
  return trimmed ? `${sign}${int}.${trimmed}` : `${sign}${int}`;
}

function parseDecimal(text: string, decimals: number, allowThousands: boolean): bigint | null {
  let s = text.trim();
  if (allowThousands) s = s.replace(/,/g, '');
  const m = /^(-?)(\d*)(?:\.(\d*))?$/.exec(s);
  if (!m) return null;
  const [, sign = '', int = '', frac = ''] = m;
  if (int === '' && frac === '') return null;
  if (frac.length > decimals) return null;
  const value =
    BigInt(int || '0') * 10n ** BigInt(decimals) + BigInt(frac.padEnd(decimals, '0') || '0');
  return sign ? -value : value;
}

/** '0.00005' -> 5000 sats; null when not a number or finer than 1 sat. */
export function btcStringToSats(text: string): Sats | null {
  const v = parseDecimal(text, BTC_DECIMALS, false);
  return v === null ? null : (v as Sats);
}

/** UNIT hundredths to '1,234.50': always 2 decimals, thousands separators (SPEC §5, §9). */
export function centsToUnitString(amount: UnitCentsInput | bigint): string {
  const { sign, int, frac } = formatFixed(toInteger(amount, 'UNIT hundredths'), UNIT_DECIMALS);
  return `${sign}${groupThousands(int)}.${frac}`;
}

/** '1,234.5' -> 123450 hundredths; null when not a number or finer than 0.01 UNIT. */
export function unitStringToCents(text: string): UnitCents | null {
  const v = parseDecimal(text, UNIT_DECIMALS, true);
  return v === null ? null : (v as UnitCents);
}

/** Whole UNIT (as a plain number, e.g. from a slider) are not money: convert cents only. */
export function centsToUnitNumber(amount: UnitCentsInput | bigint): number {
  return Number(toInteger(amount, 'UNIT hundredths')) / Number(UNIT_CENTS_PER_UNIT);
}

/** BTC as a display number (charts, gauges); never for balances. */
export function satsToBtcNumber(amount: SatsInput | bigint): number {
  return Number(toInteger(amount, 'sats')) / Number(SATS_PER_BTC);
}

/** USD value in cents of an amount of sats at a price, floored; null when the price is unknown. */
export function satsValueUsdCents(amount: SatsInput | bigint, price: PriceInput): bigint | null {
  const pc = priceToCents(price);
  if (pc === null) return null;
  return (toInteger(amount, 'sats') * pc) / SATS_PER_BTC;
}

/**
 * Sats bought by an amount of USD cents at a price, floored; null when the price is unknown. The BTC
 * field can be typed in USD (SPEC §5: 'Not Enough USD'), so the amount the user means is in sats.
 */
export function usdCentsToSats(usdCents: bigint, price: PriceInput): Sats | null {
  const pc = priceToCents(price);
  if (pc === null) return null;
  return ((usdCents * SATS_PER_BTC) / pc) as Sats;
}

/** '1,234.5' -> 123450 USD cents (SPEC §5: USD up to 2 decimals); null when not a number. */
export function usdStringToCents(text: string): bigint | null {
  return parseDecimal(text, USD_DECIMALS, true);
}

const usdFormat = new Intl.NumberFormat('en-US', {
  style: 'currency',
  currency: 'USD',
  minimumFractionDigits: 2,
  maximumFractionDigits: 2,
});
const usdCompactFormat = new Intl.NumberFormat('en-US', {
  style: 'currency',
  currency: 'USD',
  notation: 'compact',
  minimumFractionDigits: 0,
  maximumFractionDigits: 2,
});

/** '$95,000.00'; an unknown price formats as '$0.00'. */
export function formatUsd(value: number): string {
  return usdFormat.format(Number.isFinite(value) ? value : 0);
}

/** USD cents (integer) as '$1,234.56'. */
export function formatUsdCents(cents: bigint | number): string {
  const { sign, int, frac } = formatFixed(toInteger(cents, 'USD cents'), 2);
  return `${sign}$${groupThousands(int)}.${frac}`;
}

/** Compact USD (SPEC §9): '$95K', '$1.25M'. */
export function formatUsdCompact(value: number): string {
  return usdCompactFormat.format(Number.isFinite(value) ? value : 0);
}

export function minBigint(a: bigint, b: bigint): bigint {
  return a < b ? a : b;
}

export function maxBigint(a: bigint, b: bigint): bigint {
  return a > b ? a : b;
}

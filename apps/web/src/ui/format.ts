// Display-only helpers on top of @unit/protocol's formatters: no rule of SPEC.md lives here.
import {
  centsToUnitString,
  formatUsdCents,
  satsToBtcString,
  satsValueUsdCents,
  type PriceInput,
} from '@unit/protocol';

/** An amount with its unit: sats as '0.1 BTC', UNIT hundredths as '1,000.00 UNIT'. */
export function formatAmount(amount: bigint, unit: 'BTC' | 'UNIT'): string {
  return unit === 'BTC' ? `${satsToBtcString(amount)} BTC` : `${centsToUnitString(amount)} UNIT`;
}

/** USD cents as the plain decimal an input field holds: 123456n -> '1234.56' (no $, no commas). */
export function usdCentsToInputText(cents: bigint): string {
  return formatUsdCents(cents).replace(/[$,]/g, '');
}

/** UNIT hundredths as the plain decimal an input field holds: 123456n -> '1234.56'. */
export function unitCentsToInputText(cents: bigint): string {
  return centsToUnitString(cents).replace(/,/g, '');
}

/** A fee or any sats figure with its USD value beside it: '0.00000278 BTC ($0.26)'. */
export function formatBtcUsd(amount: bigint, priceUsd: PriceInput): string {
  const usd = satsValueUsdCents(amount, priceUsd);
  return `${satsToBtcString(amount)} BTC${usd != null ? ` (${formatUsdCents(usd)})` : ''}`;
}

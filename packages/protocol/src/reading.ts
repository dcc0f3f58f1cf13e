// What the dashboard's cards and the drawers tell a borrower at a glance: the distance to
// liquidation, whether a result lands in the Risky band, and the UNIT bar's reading.
import { healthBand, liquidationThresholdCents } from './ratio';
import {
  priceToCents,
  type PriceInput,
  type Sats,
  type SatsInput,
  type UnitCents,
  type UnitCentsInput,
} from './units';
import { sats, unitCents } from './units';

export interface LiquidationDistance {
  /** the price now minus the liquidation price, USD cents (negative at or under it) */
  usdCents: bigint;
  /** that distance as a percent of the price now, one decimal, rounded down: how far it may fall */
  percent: number;
}

/**
 * How far the BTC price may fall before the vault is liquidated, as BOLD and Summer.fi show it:
 * null without debt, collateral or a known price.
 */
export function liquidationDistance(
  btcSats: SatsInput,
  debtCents: UnitCentsInput,
  priceUsd: PriceInput,
): LiquidationDistance | null {
  const price = priceToCents(priceUsd);
  if (price === null || price <= 0n || unitCents(debtCents) <= 0n || sats(btcSats) <= 0n)
    return null;
  const threshold = BigInt(liquidationThresholdCents(btcSats, debtCents));
  const usdCents = price - threshold;
  // per mille, floored toward zero, so the fall shown is never more than the room there is
  const perMille = (usdCents * 1000n) / price;
  return { usdCents, percent: Number(perMille) / 10 };
}

/** True when a vault state's ratio is in SPEC §9's Risky band: warned before it is confirmed. */
export function isRiskyRatio(ratio: number): boolean {
  return healthBand(ratio) === 'risky';
}

export type UnitBarReading =
  | { kind: 'no-debt' }
  | { kind: 'covered'; percent: 100 }
  | { kind: 'short'; percent: number; missingCents: bigint };

/**
 * SPEC §2's progress bar of UNIT in the wallet against the debt: how much of the debt the wallet
 * could repay now. No debt is its own reading (an empty bar, not a full one).
 */
export function unitBarReading(
  walletCents: UnitCentsInput,
  debtCents: UnitCentsInput,
): UnitBarReading {
  const wallet = unitCents(walletCents);
  const debt = unitCents(debtCents);
  if (debt <= 0n) return { kind: 'no-debt' };
  if (wallet >= debt) return { kind: 'covered', percent: 100 };
  return { kind: 'short', percent: Number((wallet * 100n) / debt), missingCents: debt - wallet };
}

/**
 * The byte length of the output script an address pays to, read from the address alone (no
 * decoding library, so the drawers can price a withdraw before the Bitcoin code loads): a segwit
 * address's program is 5 bits per character between the separator's version character and the
 * 6-character checksum, its script 2 bytes longer; base58 addresses are P2SH (23) or P2PKH (25).
 * The withdraw's fee depends on it (estimateVsize's withdrawalScriptBytes).
 */
export function outputScriptBytes(address: string): number {
  const a = address.trim().toLowerCase();
  const sep = a.lastIndexOf('1');
  if (/^(bc|tb|bcrt)1/.test(a) && sep > 0) {
    const dataChars = a.length - sep - 1 - 1 - 6;
    if (dataChars > 0) return 2 + Math.floor((dataChars * 5) / 8);
  }
  if (/^[23]/.test(address)) return 23;
  if (/^[1mn]/.test(address)) return 25;
  return 34;
}

/** A vault's figures while a transaction of it waits for a block. */
export interface PendingFigures {
  /** the state after the last confirmed record: what the chain holds now */
  confirmedSats: Sats;
  confirmedDebtCents: UnitCents;
}

/**
 * The confirmed figures of a vault whose history holds records still waiting for a block
 * ('Finalizing...'), or null when every record is confirmed: the cards then show the confirmed
 * figure beside the pending one, not the pending one as if it were done.
 */
export function pendingFigures(
  records: readonly {
    timestamp: number;
    confirmed: boolean;
    vault_amount: number;
    amount_borrowed: number;
  }[],
): PendingFigures | null {
  if (!records.some((r) => !r.confirmed)) return null;
  const last = [...records]
    .filter((r) => r.confirmed)
    .sort((a, b) => a.timestamp - b.timestamp)
    .at(-1);
  return {
    confirmedSats: sats(last?.vault_amount ?? 0),
    confirmedDebtCents: unitCents(last?.amount_borrowed ?? 0),
  };
}

// Which vault state each dashboard card shows while a transaction waits for its block: every figure
// of a card describes one state. The headline figures, the liquidation distance, the gauge and the
// chart's "Now" are the confirmed state (what the chain holds); the state after the pending
// transaction is shown apart, labelled with the transaction ("After the pending deposit: ...").
import type { ActionCode } from './api';
import { pendingFigures, liquidationDistance, type LiquidationDistance } from './reading';
import { collateralRatio, liquidationThresholdCents } from './ratio';
import { sats, unitCents, type PriceInput, type Sats, type SatsInput, type UnitCents, type UnitCentsInput } from './units'; // prettier-ignore

/** One vault state's figures, all at the same price. */
export interface VaultReading {
  sats: Sats;
  debtCents: UnitCents;
  /** collateral ratio in percent (Infinity without debt) */
  ratio: number;
  /** the liquidation price in USD cents, or null without debt or collateral */
  liquidationCents: bigint | null;
  /** how far the price may fall before liquidation, or null (reading.ts) */
  distance: LiquidationDistance | null;
}

export interface CardReadings {
  /** what the cards' figures show: the chain's state (the vault's own while nothing is pending) */
  confirmed: VaultReading;
  /** the state once the pending transaction confirms, shown apart and labelled; null when none */
  pending: { action: ActionCode | null; state: VaultReading } | null;
}

/** One state's figures at `priceUsd`. */
export function vaultReading(
  btcSats: SatsInput,
  debtCents: UnitCentsInput,
  priceUsd: PriceInput,
): VaultReading {
  const s = sats(btcSats);
  const d = unitCents(debtCents);
  return {
    sats: s,
    debtCents: d,
    ratio: collateralRatio(s, d, priceUsd),
    liquidationCents: d > 0n && s > 0n ? BigInt(liquidationThresholdCents(s, d)) : null,
    distance: liquidationDistance(s, d, priceUsd),
  };
}

/**
 * The cards' two states: the confirmed one from the history's last confirmed record while a record
 * waits for a block (else the vault's own figures), and the vault's own figures as the pending
 * after-state when they differ from it, with the pending record's action for its label.
 */
export function cardReadings(
  records: readonly {
    timestamp: number;
    confirmed: boolean;
    action: ActionCode;
    vault_amount: number;
    amount_borrowed: number;
  }[],
  vault: { sats: SatsInput; debtCents: UnitCentsInput },
  priceUsd: PriceInput,
): CardReadings {
  const now = vaultReading(vault.sats, vault.debtCents, priceUsd);
  const figures = pendingFigures(records);
  if (!figures) return { confirmed: now, pending: null };
  const confirmed = vaultReading(figures.confirmedSats, figures.confirmedDebtCents, priceUsd);
  if (confirmed.sats === now.sats && confirmed.debtCents === now.debtCents)
    return { confirmed, pending: null };
  const waiting = records
    .filter((r) => !r.confirmed)
    .sort((a, b) => a.timestamp - b.timestamp)
    .at(-1);
  return { confirmed, pending: { action: waiting?.action ?? null, state: now } };
}

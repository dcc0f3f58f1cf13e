// Vault history (SPEC §3): action codes, their labels and colours, and the derived history row with
// health before and after computed from the running vault state.
import type { ActionCode, VaultHistoryRecordDto } from './api';
import { collateralRatio, healthStatus, type BandColour } from './ratio';
import {
  isKnownPrice,
  sats,
  satsValueUsdCents,
  unitCents,
  type PriceInput,
  type Sats,
  type UnitCents,
} from './units';

export const ACTION_CODES: readonly ActionCode[] = ['o', 'b', 'd', 'r', 'w', 'l', 'x', 's', 'e'];

export const ACTION_LABELS: Record<ActionCode, string> = {
  o: 'Open Vault',
  b: 'Borrow UNIT',
  d: 'Deposit BTC',
  r: 'Repay UNIT',
  w: 'Withdraw BTC',
  l: 'Vault Liquidation',
  x: 'Liquidation Claim',
  s: 'Settled at Term',
  e: 'Exited by Owner',
};

/** SPEC §3: o, r, d, x show green; others red. */
export const ACTION_COLOURS: Record<ActionCode, 'green' | 'red'> = {
  o: 'green',
  b: 'red',
  d: 'green',
  r: 'green',
  w: 'red',
  l: 'red',
  x: 'green',
  // The debt is repaid from the collateral and the rest leaves the vault: it closes.
  s: 'red',
  // The owner took the whole collateral through the exit leaf: the vault closes.
  e: 'red',
};

/**
 * SPEC §3: the amount is BTC for deposit and withdraw, otherwise UNIT. The owner's exit (not in
 * SPEC) moves BTC alone, the whole collateral, and repays no UNIT: its amount is BTC too.
 */
export function amountUnitOf(action: ActionCode): 'BTC' | 'UNIT' {
  return action === 'd' || action === 'w' || action === 'e' ? 'BTC' : 'UNIT';
}

export type HistoryStatus = 'In Progress' | 'Completed';

/**
 * What a history row's transaction id names. A liquidation (`l`) has no transaction of its own:
 * its record points at the vault output it opens to claimants, which the vault's last transaction
 * made (a withdraw's, say). Its row says so rather than pass that id off as the liquidation's.
 */
export type TxidRole = 'action' | 'claimed-output';

export const TXID_ROLE_LABELS: Record<TxidRole, string> = {
  action: 'This action',
  'claimed-output': 'The vault output being claimed',
};

export const txidRoleOf = (action: ActionCode): TxidRole =>
  action === 'l' ? 'claimed-output' : 'action';

export interface HealthStatusText {
  text: string;
  colour: BandColour | 'grey';
}

/** SPEC §3 Derived history row. */
export interface HistoryRow {
  /** unix seconds */
  date: number;
  type: ActionCode;
  typeLabel: string;
  /** sats when amountUnit is BTC, UNIT hundredths otherwise */
  amount: bigint;
  amountUnit: 'BTC' | 'UNIT';
  /**
   * The amount's USD value in cents at the row's price (a UNIT is a dollar), so amounts of both
   * units sort together by what they were worth; null when no price is known.
   */
  amountUsdCents: bigint | null;
  status: HistoryStatus;
  transactionId: string;
  /** what the transaction id names: the action's own transaction, or the output a claim spends */
  txidRole: TxidRole;
  healthFactorBefore: number;
  healthFactorAfter: number;
  healthStatusBefore: HealthStatusText;
  healthStatusAfter: HealthStatusText;
  /** USD price used for the health columns */
  bitcoinPrice: number;
  unitInVault: UnitCents;
  btcInVault: Sats;
}

/** The vault's state after a record: what the next record starts from. */
export interface VaultStateDto {
  vault_amount: number;
  amount_borrowed: number;
}

/**
 * Rows from history records, newest first. The state before each record is the state after the one
 * before it; the oldest record starts from `stateBefore` (the state after the next older record,
 * when the records are one page of a longer history) or empty. The state after is the record's
 * vault_amount and amount_borrowed. Records with equal timestamps are taken to be newest first, as
 * the API lists them. SPEC §8: a missing or invalid historical price is replaced by the current price.
 */
export function deriveHistoryRows(
  records: readonly VaultHistoryRecordDto[],
  priceAt: (timestamp: number) => PriceInput,
  currentPriceUsd: PriceInput = null,
  stateBefore: VaultStateDto | null = null,
): HistoryRow[] {
  const chronological = records
    .map((record, index) => ({ record, index }))
    .sort((a, b) => a.record.timestamp - b.record.timestamp || b.index - a.index)
    .map(({ record }) => record);
  const next = historyRowStepper(stateBefore);
  return chronological
    .map((record) => {
      const historical = priceAt(record.timestamp);
      return next(record, isKnownPrice(historical) ? historical : currentPriceUsd);
    })
    .reverse();
}

/**
 * The same derivation one record at a time, oldest first: each call's "before" is the previous
 * call's "after". For readers that stream a long history (the CSV export) instead of holding it.
 */
/** What a history row is derived from: the record's own fields, without its outputs and hashes. */
export type HistoryStepRecord = Pick<
  VaultHistoryRecordDto,
  | 'timestamp'
  | 'action'
  | 'btc_amt'
  | 'unit_amt'
  | 'vault_amount'
  | 'amount_borrowed'
  | 'transaction_id'
  | 'confirmed'
>;

export function historyRowStepper(
  stateBefore: VaultStateDto | null = null,
): (record: HistoryStepRecord, priceUsd: PriceInput) => HistoryRow {
  let before = stateBefore
    ? { btc: sats(stateBefore.vault_amount), debt: unitCents(stateBefore.amount_borrowed) }
    : { btc: 0n as Sats, debt: 0n as UnitCents };
  return (record, priceUsd) => {
    const price = isKnownPrice(priceUsd) ? priceUsd : NaN;
    const after = { btc: sats(record.vault_amount), debt: unitCents(record.amount_borrowed) };
    const ratioBefore = collateralRatio(before.btc, before.debt, price);
    const ratioAfter = collateralRatio(after.btc, after.debt, price);
    const unit = amountUnitOf(record.action);
    const amount = unit === 'BTC' ? BigInt(record.btc_amt) : BigInt(record.unit_amt);
    before = after;
    return {
      date: record.timestamp,
      type: record.action,
      typeLabel: ACTION_LABELS[record.action],
      amount,
      amountUnit: unit,
      amountUsdCents: unit === 'BTC' ? satsValueUsdCents(amount, price) : amount,
      status: record.confirmed ? 'Completed' : 'In Progress',
      transactionId: record.transaction_id,
      txidRole: txidRoleOf(record.action),
      healthFactorBefore: ratioBefore,
      healthFactorAfter: ratioAfter,
      healthStatusBefore: statusText(ratioBefore),
      healthStatusAfter: statusText(ratioAfter),
      bitcoinPrice: price,
      unitInVault: after.debt,
      btcInVault: after.btc,
    };
  };
}

function statusText(ratio: number): HealthStatusText {
  const { text, colour } = healthStatus(ratio);
  return { text, colour };
}

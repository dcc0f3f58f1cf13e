// Maximum amounts of each action (SPEC §5), in integers: the price becomes cents (bigint) so the
// maxima are exact and the guardian and the web app agree to the sat.
import { COLLATERAL_PERCENT, DUST_LIMIT_SATS, MIN_VAULT_BALANCE_SATS } from './constants';
import {
  maxBigint,
  minBigint,
  priceToCents,
  sats,
  unitCents,
  type PriceInput,
  type Sats,
  type SatsInput,
  type UnitCents,
  type UnitCentsInput,
} from './units';

const ZERO_SATS = 0n as Sats;
const ZERO_CENTS = 0n as UnitCents;

/**
 * Sats the debt requires at `collateralPercent`: debt x 1.6 / price x 1e8, rounded up so that what
 * remains keeps the ratio at or above it. In integers: cents x pct x 1e6 / price_cents.
 */
export function requiredCollateralSats(
  debtCents: UnitCentsInput,
  priceUsd: PriceInput,
  collateralPercent: number = COLLATERAL_PERCENT,
): Sats | null {
  const debt = unitCents(debtCents);
  if (debt <= 0n) return ZERO_SATS;
  const pc = priceToCents(priceUsd);
  if (pc === null) return null;
  const num = debt * BigInt(collateralPercent) * 1_000_000n;
  return ((num + pc - 1n) / pc) as Sats;
}

/** Borrow maximum (SPEC §5): BTC in vault x price / 1.6 minus existing UNIT; 0 when the price is unknown. */
export function maxBorrowCents(
  btcSats: SatsInput,
  debtCents: UnitCentsInput,
  priceUsd: PriceInput,
  collateralPercent: number = COLLATERAL_PERCENT,
): UnitCents {
  const pc = priceToCents(priceUsd);
  if (pc === null) return ZERO_CENTS;
  // cents = sats/1e8 * pc/100 / (pct/100) * 100 = sats * pc / (pct * 1e6)
  const capacity = (sats(btcSats) * pc) / (BigInt(collateralPercent) * 1_000_000n);
  return maxBigint(capacity - unitCents(debtCents), 0n) as UnitCents;
}

export interface MaxWithdrawInput {
  vaultSats: SatsInput;
  unitCents: UnitCentsInput;
  priceUsd: PriceInput;
  operationCostSats: SatsInput;
  minVaultBalanceSats?: SatsInput;
  collateralPercent?: number;
}

/**
 * Withdraw maximum (SPEC §5): floor(vault sats - debt x 1.6 / price x 1e8) - cost - minimum vault
 * balance, never below 0, and 0 when the price is unknown. The fee comes out of the vault
 * (docs/protocol.md), so what stays keeps the ratio >= 160%.
 */
export function maxWithdrawSats(input: MaxWithdrawInput): Sats {
  const required = requiredCollateralSats(input.unitCents, input.priceUsd, input.collateralPercent);
  if (required === null) return ZERO_SATS;
  const max =
    sats(input.vaultSats) -
    required -
    sats(input.operationCostSats) -
    sats(input.minVaultBalanceSats ?? MIN_VAULT_BALANCE_SATS);
  return maxBigint(max, 0n) as Sats;
}

export interface MaxDepositInput {
  walletSats: SatsInput;
  operationCostSats: SatsInput;
  /** Creating a vault also leaves the dust limit out (SPEC §5). */
  forCreate: boolean;
  dustLimitSats?: SatsInput;
}

/** Deposit maximum (SPEC §5): wallet sats minus operation cost; for create, minus the dust limit too. */
export function maxDepositSats(input: MaxDepositInput): Sats {
  let max = sats(input.walletSats) - sats(input.operationCostSats);
  if (input.forCreate) max -= sats(input.dustLimitSats ?? DUST_LIMIT_SATS);
  return maxBigint(max, 0n) as Sats;
}

/** Repay maximum (SPEC §5): the smaller of the UNIT rune balance and the UNIT debt. */
export function maxRepayCents({
  runeBalanceCents,
  debtCents,
}: {
  runeBalanceCents: UnitCentsInput;
  debtCents: UnitCentsInput;
}): UnitCents {
  return maxBigint(minBigint(unitCents(runeBalanceCents), unitCents(debtCents)), 0n) as UnitCents;
}

/**
 * SPEC §5: an amount within the dust limit below the maximum would leave dust change; it is reduced
 * so that the change is at least the dust limit. The maximum itself leaves no change and is kept.
 */
export function avoidDustChange(
  amount: SatsInput,
  max: SatsInput,
  dustLimitSats: SatsInput = DUST_LIMIT_SATS,
): Sats {
  const a = sats(amount);
  const m = sats(max);
  const dust = sats(dustLimitSats);
  const gap = m - a;
  if (gap > 0n && gap < dust) return maxBigint(m - dust, 0n) as Sats;
  return a;
}

/** Clamp an entered amount to [0, max] (SPEC §5: a value above the maximum is clamped). */
export function clampSats(amount: SatsInput, max: SatsInput): Sats {
  return maxBigint(minBigint(sats(amount), sats(max)), 0n) as Sats;
}

export function clampUnitCents(amount: UnitCentsInput, max: UnitCentsInput): UnitCents {
  return maxBigint(minBigint(unitCents(amount), unitCents(max)), 0n) as UnitCents;
}

/** Slider (SPEC §5): a whole percentage of the maximum, floored; Max is 100. */
export function sliderAmount<T extends bigint>(max: T, percentOfMax: number): T {
  const pct = BigInt(Math.min(100, Math.max(0, Math.round(percentOfMax))));
  return ((max * pct) / 100n) as T;
}

/** Slider position (0..100) of an amount relative to the maximum. */
export function sliderPercent(amount: bigint, max: bigint): number {
  if (max <= 0n) return 0;
  const a = amount < 0n ? 0n : amount > max ? max : amount;
  return Number((a * 100n) / max);
}

// The one source of every business constant of the product specification (its §9). Values the
// specification leaves open are ours, each with why beside it; the configurable ones are served to
// the web app by GET /api/config, so the functions that use them also take an override.

// ---- Units (SPEC §9) ----
export const SATS_PER_BTC = 100_000_000n;
export const UNIT_CENTS_PER_UNIT = 100n;
export const USD_CENTS_PER_USD = 100n;
export const BTC_DECIMALS = 8;
export const UNIT_DECIMALS = 2;
export const USD_DECIMALS = 2;
/** Integer-part digit cap of an amount input (SPEC §5: value not shown; ours, configurable). */
export const AMOUNT_INT_DIGITS = { btc: 8, unit: 12, usd: 12 } as const;

// ---- Amount limits (ours, SPEC §9: values not shown) ----
/** Standard P2WPKH/P2TR dust limit. */
export const DUST_LIMIT_SATS = 546;
export const MIN_VAULT_BALANCE_SATS = 10_000;
/** 0.00005 BTC, configurable. */
export const MIN_BTC_SATS = 5_000;

// ---- Ratios (SPEC §4, §9) ----
/** Collateral constant of the borrow and withdraw maxima: 1.6, i.e. 160%. */
export const COLLATERAL_PERCENT = 160;
export const LIQUIDATION_THRESHOLD_PERCENT = 135;
/** Collateral ratio shown when it cannot be computed (SPEC §9). */
export const DEFAULT_COLLATERAL_RATIO = 160;
export const HEALTH_DISPLAY_CAP_PERCENT = 500;
/** SPEC §5: a health factor of 1 means N/A. */
export const HEALTH_FACTOR_NOT_APPLICABLE = 1;
export const HEALTH_BANDS = {
  risky: { min: 135, max: 160 },
  moderate: { min: 161, max: 195, gaugeMax: 200 },
  healthy: { min: 196, max: 230 },
} as const;

// ---- Chart (SPEC §9) ----
export const CHART_Y_FLOOR = 125;
export const CHART_Y_TOP = 500;
export const CHART_LIQUIDATION_LINE = 135;
export const CHART_Y_TICKS = [125, 200, 275, 350, 425, 500] as const;

// ---- Vault script (docs/protocol.md, "The vault output"; the protocol's own limits) ----
/** Guardian keys a vault output may commit to: one update leaf and its liquidation leaves each. */
export const VAULT_MAX_GUARD_COUNT = 3;
/** Oracle commitments (threshold hashes) a vault output may commit to: one liquidation leaf each. */
export const VAULT_MAX_ORACLE_COUNT = 3;

// ---- UNIT ----
/** UNIT is valued at face value (SPEC §9: value not shown; ours). */
export const UNIT_PRICE_USD = 1;
export const UNIT_POSTAGE_SATS = 10_000;

// ---- Fees (SPEC §9) ----
/** Vin allowance: 350 vbytes per fee-rate unit added to every operation cost. */
export const VIN_ALLOWANCE_VBYTES = 350;
export const DUST_CHANGE_RETRIES = 5;
export const DEFAULT_FEE_RATE = 1;
/** The fee rate is reduced while FEE_CAP_VBYTES at that rate cost more than FEE_CAP_USD. */
export const FEE_CAP_VBYTES = 1000;
export const FEE_CAP_USD = 1000;

// ---- Time (SPEC §4, §7, §9; ours where marked) ----
/** Flow time-out: guardian 60 s + 5 s buffer (ours). */
export const FLOW_TIMEOUT_MS = 65_000;
/** unit.reserve time limit for repay and open (SPEC §7). */
export const RESERVE_TIMEOUT_MS = 30_000;
export const RETRY_COUNTDOWN_SECONDS = 30;
export const LIQUIDATED_MARKER_TTL_SECONDS = 21_600;
/**
 * Ours (SPEC is silent): a transaction unconfirmed for an hour may have been dropped. Past that
 * the user may forget its pending entry, and it no longer holds the vault's actions back (the
 * guardian still refuses a spend of an output that is really in use).
 */
export const PENDING_STALE_AFTER_SECONDS = 3_600;
/** The guardian refuses an oracle quote older than this (ours, protocol docs). */
export const ORACLE_QUOTE_MAX_AGE_SECONDS = 300;
/** Repossession tax: share of the liquidated collateral sent to the treasury (ours, protocol docs). */
export const REPOSSESSION_TAX_PERCENT = 15;
export const PRICE_REFETCH_MS = 30_000;
export const PRICE_HISTORY_24H_STALE_MS = 3_600_000;
export const PRICE_HISTORY_RETRIES = 5;
export const PRICE_HISTORY_RETRY_DELAY_MS = 5_000;
export const WALLET_BALANCE_STALE_MS = 60_000;
export const POST_STEP_DELAY_MS = 350;
export const CLIPBOARD_TOAST_MS = 1_500;
export const VAULT_REFRESH_AFTER_CREATE_MS = 5_000;
export const TELEGRAM_NOTIFY_DELAY_MS = 5_000;
export const TELEGRAM_NOTIFY_RETRIES_ACTION = 0;
export const TELEGRAM_NOTIFY_RETRIES_CREATE = 5;
export const TELEGRAM_NOTIFY_RETRY_DELAY_MS = 5_000;

// ---- Storage, tables, inputs ----
/** Pending transactions are stored per wallet under the first 6 characters of the address (SPEC §4). */
export const PENDING_KEY_PREFIX_LENGTH = 6;
/** SPEC §2, first reading: desktop pages of 5 rows, mobile batches of 5 per month group. */
export const TRANSACTIONS_PAGE_SIZE = 5;
export const TRANSACTIONS_MOBILE_BATCH = 5;
export const VAULT_NAME_MAX_LENGTH = 20;
export const TESTNET_ADDRESS_MIN_LENGTH = 39;
export const TESTNET_ADDRESS_MAX_LENGTH = 59;

/** How long a vault transaction may wait unconfirmed before the app suggests a speed-up (SPEED_UP_AFTER). */
export const SPEED_UP_AFTER_SECONDS = 600;

/** The configurable constants of GET /api/config (`ConfigDto.constants`). */
export interface ConfigConstants {
  minBtcSats: number;
  dustLimitSats: number;
  minVaultBalanceSats: number;
  collateralPercent: number;
  liquidationThresholdPercent: number;
  unitPostageSats: number;
  flowTimeoutMs: number;
  /** seconds a transaction waits unconfirmed before the app suggests speeding it up */
  speedUpAfterSeconds: number;
  amountIntDigits: { btc: number; unit: number; usd: number };
  /**
   * true with the guardian network: quotes carry the guardians' price quorum and every state record
   * commits to it, 32 bytes more (estimateVsize's `quorumCommitment`). Absent in off mode.
   */
  priceQuorum?: boolean;
  /**
   * The term new vault outputs commit to (VAULT_TERM_BLOCKS, VAULT_TERM_GRACE_BLOCKS): present when
   * the app writes layout 2, whose records are 40 bytes longer (estimateVsize's `term`).
   */
  vaultTerm?: { termBlocks: number; graceBlocks: number };
}

/** The configurable constants as GET /api/config serves them by default. */
export const DEFAULT_CONFIG_CONSTANTS: ConfigConstants = {
  minBtcSats: MIN_BTC_SATS,
  dustLimitSats: DUST_LIMIT_SATS,
  minVaultBalanceSats: MIN_VAULT_BALANCE_SATS,
  collateralPercent: COLLATERAL_PERCENT,
  liquidationThresholdPercent: LIQUIDATION_THRESHOLD_PERCENT,
  unitPostageSats: UNIT_POSTAGE_SATS,
  flowTimeoutMs: FLOW_TIMEOUT_MS,
  speedUpAfterSeconds: SPEED_UP_AFTER_SECONDS,
  amountIntDigits: { ...AMOUNT_INT_DIGITS },
};

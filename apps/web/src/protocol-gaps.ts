// Rules and copy the web app needs that @unit/protocol did not export yet when the web app was
// written. Everything here is pure (no React, no I/O) so the lead can move it into
// packages/protocol unchanged and switch the imports.
import type {
  ActionCode,
  RecommendedFeesDto,
  TimePeriod,
  VaultAction,
  VaultHistoryRecordDto,
} from '@unit/protocol';

// ---------------------------------------------------------------- constants (CONSTANTS.md)
export const SATS_PER_BTC_NUM = 100_000_000;
export const LIQUIDATION_THRESHOLD_PERCENT = 135;
export const DEFAULT_RATIO_PERCENT = 160; // SPEC §9: default 160 when unknown
export const HEALTH_DISPLAY_CAP = 500;
export const LIQUIDATED_MARKER_SECONDS = 21_600; // SPEC §4
export const RETRY_COUNTDOWN_SECONDS = 30; // SPEC §4
export const POST_STEP_DELAY_MS = 350; // SPEC §9
export const CLIPBOARD_TOAST_MS = 1_500; // SPEC §9
export const VAULT_REFRESH_AFTER_CREATE_MS = 5_000; // SPEC §4
export const VAULT_NAME_MAX = 20; // SPEC §5
export const VIN_ALLOWANCE_VBYTES = 350; // SPEC §9
export const BTC_DECIMALS = 8;
export const UNIT_DECIMALS = 2;
export const USD_DECIMALS = 2;
export const CHART_FLOOR = 125;
export const CHART_TOP = 500;
export const CHART_TICKS = [125, 200, 275, 350, 425, 500] as const; // SPEC §9: from 125 in 6 steps
export const GAUGE_MAX = 230;

// ---------------------------------------------------------------- copy (SPEC, quoted exactly)
export const content = {
  errorScreen: {
    title: 'Oops! Something went wrong',
    body: "We've encountered an unexpected error. Our team has been notified and is working on a fix.",
    tryAgain: 'Try again',
    reload: 'Reload page',
  },
  vault: {
    createVault: 'Create Vault',
    pending: 'Your vault is under construction. Almost there! This might take about 10 minutes.',
    enableTelegram: 'Enable Telegram Notification',
    transactionTracker: 'Transaction Tracker',
    success: 'Vault Successfully Created!',
    goToVault: 'Go to Vault',
    liquidatingBadge: 'Liquidating...',
    liquidationModalTitle: 'Vault in Liquidation',
    liquidationModalBody: 'All actions are disabled until the liquidation of this vault completes.',
    liquidationNotice:
      'This vault has been liquidated: its collateral ratio fell to 135% or below.',
    youAreHere: 'You are here!',
    finalizing: 'Finalizing...',
    completed: 'Completed',
    withdrawTooltip:
      'Amount of BTC you can withdraw from your vault while keeping your collateral ratio >=160%.',
  },
  wallet: { prompt: 'Select your preffered wallet to open a vault.', connect: 'Connect Wallet' },
  successTitles: {
    deposit: 'BTC Deposit Submitted',
    withdraw: 'BTC Withdrawal Submitted',
    borrow: 'Vault Borrow Submitted!',
    repay: 'UNIT Repayment Submitted',
  },
  validation: {
    nameTooLong: 'Use a maximum of 20 characters.',
    lowestBtc: (min: string) => `The lowest accepted amount is ${min} BTC`,
    notEnoughBitcoin: 'Not Enough Bitcoin',
    notEnoughUsd: 'Not Enough USD',
    maxUnit: (n: string) => `Maximum value cannot exceed ${n} UNIT`,
    costExceedsWallet: (x: string, y: string) =>
      `The transaction costs ${x}, but you only have ${y} in your wallet`,
    noPrice: 'Can not fetch bitcoin price',
  },
  errors: {
    generic: 'An error occurred',
    timeout: 'Request timed out. Please try again',
    vaultOpenFailed: 'Vault Open failed',
    unknown: 'Unknown error',
    noVaultProfile: 'No Vault profile',
  },
  missions: {
    start: 'Start',
    verify: 'Verify',
    inProgress: 'In progress...',
    login: 'Login',
    register: 'Register',
    connectWallet: 'Connect Wallet',
    levels: ['Nebula', 'Red Giant', 'Super Giant'] as const,
  },
  copied: 'Copied to clipboard',
} as const;

// ---------------------------------------------------------------- amounts
/** BTC decimal string to sats, exactly (no floats). Returns null when the text is not a number. */
export function btcToSats(text: string): bigint | null {
  const m = /^(\d*)(?:\.(\d*))?$/.exec(text.trim());
  if (!m || (m[1] === '' && (m[2] ?? '') === '')) return null;
  const frac = (m[2] ?? '').slice(0, BTC_DECIMALS).padEnd(BTC_DECIMALS, '0');
  return BigInt(m[1] || '0') * 100_000_000n + BigInt(frac);
}

/** Hundredths from a decimal string with up to two decimals (UNIT or USD). */
export function toHundredths(text: string): bigint | null {
  const m = /^(\d*)(?:\.(\d*))?$/.exec(text.replace(/,/g, '').trim());
  if (!m || (m[1] === '' && (m[2] ?? '') === '')) return null;
  const frac = (m[2] ?? '').slice(0, 2).padEnd(2, '0');
  return BigInt(m[1] || '0') * 100n + BigInt(frac);
}

export function formatBtc(sats: bigint | number, maxDecimals = BTC_DECIMALS): string {
  const s = BigInt(sats);
  const neg = s < 0n;
  const abs = neg ? -s : s;
  const whole = abs / 100_000_000n;
  let frac = (abs % 100_000_000n).toString().padStart(8, '0').slice(0, maxDecimals);
  frac = frac.replace(/0+$/, '');
  return `${neg ? '-' : ''}${whole}${frac ? `.${frac}` : ''}`;
}

function groupThousands(n: bigint): string {
  return n.toString().replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

/** Hundredths (UNIT or USD cents) with thousands separators and two decimals. */
export function formatHundredths(cents: bigint | number): string {
  const c = BigInt(cents);
  const neg = c < 0n;
  const abs = neg ? -c : c;
  return `${neg ? '-' : ''}${groupThousands(abs / 100n)}.${(abs % 100n).toString().padStart(2, '0')}`;
}

export const formatUnit = (cents: bigint | number) => `${formatHundredths(cents)} UNIT`;
export const formatUsd = (cents: bigint | number) => `$${formatHundredths(cents)}`;

/** USD price (JSON number) to integer cents. */
export const priceToCents = (usd: number): bigint => BigInt(Math.round(usd * 100));

/** Value in USD cents of some sats at a price in cents, floored. */
export const satsToUsdCents = (sats: bigint, priceCents: bigint): bigint =>
  (sats * priceCents) / 100_000_000n;

/** Sats bought by some USD cents at a price in cents, floored. */
export const usdCentsToSats = (usdCents: bigint, priceCents: bigint): bigint =>
  priceCents > 0n ? (usdCents * 100_000_000n) / priceCents : 0n;

// ---------------------------------------------------------------- ratio and health (SPEC §9)
/** round(BTC × price / UNIT owed × 100); 160 when unknown (no debt or no price). */
export function collateralRatio(
  sats: bigint,
  debtCents: bigint,
  priceCents: bigint | null,
): number {
  if (debtCents <= 0n || priceCents == null || priceCents <= 0n) return DEFAULT_RATIO_PERCENT;
  const num = sats * priceCents * 100n;
  const den = 100_000_000n * debtCents;
  return Number((num * 2n + den) / (den * 2n));
}

export type HealthBand = 'Risky' | 'Moderate' | 'Healthy';

export function healthBand(ratio: number): HealthBand | null {
  if (!Number.isFinite(ratio) || ratio < LIQUIDATION_THRESHOLD_PERCENT) return null;
  if (ratio <= 160) return 'Risky';
  if (ratio <= 195) return 'Moderate';
  return 'Healthy';
}

/** The range subtitle of a band, shown on gauge hover (SPEC §2 Gauge, §9). */
export const bandRange: Record<HealthBand, string> = {
  Risky: '135% - 160%',
  Moderate: '161% - 195%',
  Healthy: '196% - 230%+',
};

/** SPEC §5: a health factor of 1 means N/A; 500 or more shows '500+%'. */
export function formatHealth(ratio: number): string {
  if (ratio === 1 || !Number.isFinite(ratio)) return 'N/A';
  if (ratio >= HEALTH_DISPLAY_CAP) return '500+%';
  return `${ratio}%`;
}

/** Liquidation price in USD cents: debt × 1.35 / BTC in vault, floored; null without debt. */
export function liquidationPriceCents(sats: bigint, debtCents: bigint): bigint | null {
  if (debtCents <= 0n || sats <= 0n) return null;
  return (debtCents * BigInt(LIQUIDATION_THRESHOLD_PERCENT) * 100_000_000n) / (100n * sats);
}

// ---------------------------------------------------------------- maxima (SPEC §5)
export function maxBorrowCents(
  sats: bigint,
  debtCents: bigint,
  priceCents: bigint,
  collateralPercent: number,
): bigint {
  const cap = (sats * priceCents * 100n) / (100_000_000n * BigInt(collateralPercent));
  const room = cap - debtCents;
  return room > 0n ? room : 0n;
}

export function maxWithdrawSats(o: {
  vaultSats: bigint;
  debtCents: bigint;
  priceCents: bigint;
  collateralPercent: number;
  costSats: bigint;
  minVaultBalanceSats: bigint;
}): bigint {
  const den = 100n * o.priceCents;
  const needed = (o.debtCents * BigInt(o.collateralPercent) * 100_000_000n + den - 1n) / den;
  const max = o.vaultSats - needed - o.costSats - o.minVaultBalanceSats;
  return max > 0n ? max : 0n;
}

export function maxDepositSats(
  walletSats: bigint,
  costSats: bigint,
  dustLimitSats: bigint,
  forCreate: boolean,
): bigint {
  const max = walletSats - costSats - (forCreate ? dustLimitSats : 0n);
  return max > 0n ? max : 0n;
}

export const maxRepayCents = (runeCents: bigint, debtCents: bigint): bigint =>
  runeCents < debtCents ? runeCents : debtCents;

/** SPEC §5: an amount within the dust limit below the maximum would leave dust change. */
export function avoidDustChange(amount: bigint, max: bigint, dust: bigint): bigint {
  return max - amount > 0n && max - amount <= dust ? max - dust : amount;
}

// ---------------------------------------------------------------- fees (SPEC §3, §9)
export type FeeLabel = 'Slow' | 'Medium' | 'Fast';
export interface FeeOption {
  label: FeeLabel;
  fee: number;
  time: string;
}
export const DEFAULT_FEE_LABEL: FeeLabel = 'Fast';

export function feeOptions(
  fees: RecommendedFeesDto | undefined,
  priceUsd: number | null,
): FeeOption[] {
  const cap = (rate: number) => {
    // SPEC §9: reduce while 1000 vB at that rate costs more than 1000 USD.
    let r = Math.max(1, Math.round(rate));
    while (priceUsd != null && r > 1 && ((1000 * r) / SATS_PER_BTC_NUM) * priceUsd > 1000) r -= 1;
    return r;
  };
  return [
    { label: 'Slow', fee: cap(fees?.hourFee ?? 1), time: '~60+ min' },
    { label: 'Medium', fee: cap(fees?.halfHourFee ?? 1), time: '~30 min' },
    { label: 'Fast', fee: cap(fees?.fastestFee ?? 1), time: '~10 min' },
  ];
}

/** Virtual size estimates per action (inputs grow with coin selection: one vin allowance). */
const ACTION_VSIZE: Record<VaultAction, number> = {
  open: 420,
  deposit: 260,
  withdraw: 230,
  borrow: 480,
  repay: 520,
  repossess: 400,
};

export function operationCostSats(
  action: VaultAction,
  feeRate: number,
  postageSats = 10_000,
): bigint {
  const vsize = ACTION_VSIZE[action] + VIN_ALLOWANCE_VBYTES;
  const postage =
    action === 'open' || action === 'borrow'
      ? postageSats
      : action === 'repay'
        ? 2 * postageSats
        : 0;
  return BigInt(Math.ceil(vsize * Math.max(1, feeRate)) + postage);
}

// ---------------------------------------------------------------- input and validation (SPEC §5)
/** Digits and one decimal point; decimals and integer digits capped. */
export function sanitizeAmountInput(raw: string, decimals: number, intDigits: number): string {
  let seenDot = false;
  let out = '';
  for (const ch of raw.replace(/,/g, '')) {
    if (ch >= '0' && ch <= '9') out += ch;
    else if (ch === '.' && !seenDot && decimals > 0) {
      seenDot = true;
      out += ch;
    }
  }
  const [int = '', frac] = out.split('.');
  const cappedInt = int.slice(0, intDigits);
  return frac === undefined ? cappedInt : `${cappedInt}.${frac.slice(0, decimals)}`;
}

export function validateVaultName(name: string): string | null {
  return name.length > VAULT_NAME_MAX ? content.validation.nameTooLong : null;
}

export function validateBtcAmount(o: {
  sats: bigint;
  minSats: bigint;
  maxSats: bigint;
  mode: 'BTC' | 'USD';
}): string | null {
  if (o.sats <= 0n) return null;
  if (o.sats > o.maxSats)
    return o.mode === 'BTC' ? content.validation.notEnoughBitcoin : content.validation.notEnoughUsd;
  if (o.sats < o.minSats) return content.validation.lowestBtc(formatBtc(o.minSats));
  return null;
}

export function validateUnitAmount(cents: bigint, maxCents: bigint): string | null {
  return cents > maxCents ? content.validation.maxUnit(formatHundredths(maxCents)) : null;
}

// ---------------------------------------------------------------- button states (SPEC §4)
export interface ButtonState {
  enabled: boolean;
  reason: string | null;
}
export interface VaultActionContext {
  pending: boolean;
  liquidated: boolean;
  activeAction: boolean;
  priceCents: bigint | null;
  walletSats: bigint;
  vaultSats: bigint;
  debtCents: bigint;
  runeCents: bigint;
  collateralPercent: number;
  minVaultBalanceSats: bigint;
  costSats: (action: VaultAction) => bigint;
}

const off = (reason: string): ButtonState => ({ enabled: false, reason });
const on: ButtonState = { enabled: true, reason: null };

function common(c: VaultActionContext): ButtonState | null {
  if (c.liquidated) return off('Actions are disabled while the vault is in liquidation');
  if (c.pending) return off('A transaction is pending confirmation');
  if (c.activeAction) return off('Another action is in progress');
  return null;
}

export function depositButtonState(c: VaultActionContext): ButtonState {
  return common(c) ?? (c.walletSats <= 0n ? off('Your wallet has no bitcoin') : on);
}

export function borrowButtonState(c: VaultActionContext): ButtonState {
  const blocked = common(c);
  if (blocked) return blocked;
  if (c.priceCents == null) return off(content.validation.noPrice);
  if (c.walletSats < c.costSats('borrow'))
    return off('Your wallet cannot pay the transaction cost');
  if (maxBorrowCents(c.vaultSats, c.debtCents, c.priceCents, c.collateralPercent) <= 0n)
    return off('The vault cannot support more borrowing');
  return on;
}

export function repayButtonState(c: VaultActionContext): ButtonState {
  const blocked = common(c);
  if (blocked) return blocked;
  if (c.debtCents <= 0n) return off('There is no UNIT debt to repay');
  if (c.walletSats < c.costSats('repay')) return off('Your wallet cannot pay the transaction cost');
  return on;
}

export function withdrawButtonState(c: VaultActionContext): ButtonState {
  const blocked = common(c);
  if (blocked) return blocked;
  if (c.priceCents == null) return off(content.validation.noPrice);
  const max = maxWithdrawSats({
    vaultSats: c.vaultSats,
    debtCents: c.debtCents,
    priceCents: c.priceCents,
    collateralPercent: c.collateralPercent,
    costSats: c.costSats('withdraw'),
    minVaultBalanceSats: c.minVaultBalanceSats,
  });
  return max <= 0n ? off('No BTC can be withdrawn while keeping the ratio >=160%') : on;
}

// ---------------------------------------------------------------- liquidated state (SPEC §4)
export function isLiquidated(o: {
  inLiquidatedList: boolean;
  ratio: number;
  hasDebt: boolean;
  markerSetAt: number | null;
  nowSeconds: number;
}): boolean {
  if (o.inLiquidatedList) return true;
  if (o.hasDebt && o.ratio <= LIQUIDATION_THRESHOLD_PERCENT) return true;
  return o.markerSetAt != null && o.nowSeconds - o.markerSetAt < LIQUIDATED_MARKER_SECONDS;
}

// ---------------------------------------------------------------- vault actions applied
export type FlowAction = 'create' | 'deposit' | 'withdraw' | 'borrow' | 'repay';

export interface VaultPosition {
  sats: bigint;
  debtCents: bigint;
}

/** The vault after an action (amount in sats for BTC actions, hundredths for UNIT ones). */
export function applyAction(
  before: VaultPosition,
  action: FlowAction,
  amount: bigint,
  extra: { borrowCents?: bigint; costSats?: bigint } = {},
): VaultPosition {
  switch (action) {
    case 'create':
      return { sats: amount, debtCents: extra.borrowCents ?? 0n };
    case 'deposit':
      return { sats: before.sats + amount, debtCents: before.debtCents };
    case 'withdraw':
      return { sats: before.sats - amount - (extra.costSats ?? 0n), debtCents: before.debtCents };
    case 'borrow':
      return { sats: before.sats, debtCents: before.debtCents + amount };
    case 'repay':
      return { sats: before.sats, debtCents: before.debtCents - amount };
  }
}

// ---------------------------------------------------------------- history (SPEC §3)
export const ACTION_LABELS: Record<ActionCode, string> = {
  o: 'Open Vault',
  b: 'Borrow UNIT',
  d: 'Deposit BTC',
  r: 'Repay UNIT',
  w: 'Withdraw BTC',
  l: 'Vault Liquidation',
  x: 'Liquidation Claim',
};
const GREEN_CODES: ReadonlySet<ActionCode> = new Set(['o', 'r', 'd', 'x']);
export const actionColour = (code: ActionCode): 'green' | 'red' =>
  GREEN_CODES.has(code) ? 'green' : 'red';

export interface HistoryRow {
  /** unix seconds */
  date: number;
  code: ActionCode;
  type: string;
  colour: 'green' | 'red';
  /** sats for BTC rows, hundredths for UNIT rows */
  amount: bigint;
  amountUnit: 'BTC' | 'UNIT';
  status: 'Completed' | 'In Progress';
  transactionId: string;
  healthBefore: number;
  healthAfter: number;
  bandBefore: HealthBand | null;
  bandAfter: HealthBand | null;
  bitcoinPrice: number;
  btcInVault: bigint;
  unitInVault: bigint;
}

/** Oldest-first records to newest-first rows with health before/after each action. */
export function deriveHistoryRows(records: VaultHistoryRecordDto[]): HistoryRow[] {
  const sorted = [...records].sort((a, b) => a.timestamp - b.timestamp);
  let prevSats = 0n;
  let prevDebt = 0n;
  const rows = sorted.map((r): HistoryRow => {
    const price = priceToCents(r.oracle_price);
    const sats = BigInt(r.vault_amount);
    const debt = BigInt(r.amount_borrowed);
    const healthBefore = collateralRatio(prevSats, prevDebt, price);
    const healthAfter = collateralRatio(sats, debt, price);
    prevSats = sats;
    prevDebt = debt;
    const btc =
      r.action === 'd' ||
      r.action === 'w' ||
      r.action === 'o' ||
      r.action === 'l' ||
      r.action === 'x';
    return {
      date: r.timestamp,
      code: r.action,
      type: ACTION_LABELS[r.action],
      colour: actionColour(r.action),
      amount: BigInt(btc ? r.btc_amt : r.unit_amt),
      amountUnit: btc ? 'BTC' : 'UNIT',
      status: r.confirmed ? 'Completed' : 'In Progress',
      transactionId: r.transaction_id,
      healthBefore,
      healthAfter,
      bandBefore: healthBand(healthBefore),
      bandAfter: healthBand(healthAfter),
      bitcoinPrice: r.oracle_price,
      btcInVault: sats,
      unitInVault: debt,
    };
  });
  return rows.reverse();
}

const MONTHS = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];

/** 'MMMM yyyy' of a unix time in UTC. */
export const monthHeading = (seconds: number): string => {
  const d = new Date(seconds * 1000);
  return `${MONTHS[d.getUTCMonth()]} ${d.getUTCFullYear()}`;
};

export function groupByMonth<T extends { date: number }>(
  rows: T[],
): { month: string; rows: T[] }[] {
  const groups: { month: string; rows: T[] }[] = [];
  for (const row of rows) {
    const month = monthHeading(row.date);
    const last = groups[groups.length - 1];
    if (last && last.month === month) last.rows.push(row);
    else groups.push({ month, rows: [row] });
  }
  return groups;
}

// ---------------------------------------------------------------- pending transactions (SPEC §4)
export interface PendingTx {
  date: number;
  type: FlowAction;
  amount: string;
  amountUnit: 'BTC' | 'UNIT';
  status: 'In Progress' | 'Completed';
  transactionId: string;
  vault_txid: string;
}

/** Per wallet, keyed by the first 6 characters of the address. */
export const pendingStorageKey = (address: string) => `unit.pending.${address.slice(0, 6)}`;

export function reconcilePending(
  pending: PendingTx[],
  history: { transaction_id: string }[],
): PendingTx[] {
  const seen = new Set(history.map((h) => h.transaction_id));
  return pending.map((p) =>
    p.status === 'In Progress' && (seen.has(p.transactionId) || seen.has(p.vault_txid))
      ? { ...p, status: 'Completed' }
      : p,
  );
}

// ---------------------------------------------------------------- errors (SPEC §8)
export function toUserMessage(error: unknown): string {
  const message = error instanceof Error ? error.message : typeof error === 'string' ? error : '';
  if (!message) return content.errors.unknown;
  if (message === 'user timeout' || /timed out|timeout/i.test(message))
    return content.errors.timeout;
  return message;
}

export const isNoAccountsError = (error: unknown) =>
  error instanceof Error && /no accounts/i.test(error.message);

// ---------------------------------------------------------------- chart intervals (SPEC §9)
export interface ChartInterval {
  period: TimePeriod;
  label: string;
  units: number;
  stepSeconds: number;
}
export const CHART_INTERVALS: readonly ChartInterval[] = [
  { period: '24h', label: '1D', units: 288, stepSeconds: 300 },
  { period: '7d', label: '1W', units: 168, stepSeconds: 3_600 },
  { period: '30d', label: '1M', units: 120, stepSeconds: 21_600 },
  { period: '1y', label: 'YTD', units: 365, stepSeconds: 86_400 },
];

// Collateral ratio chart (SPEC §2 Chart, §9): intervals, axis and the bucketed ratio series.
import type { ActionCode, PricePointDto, TimePeriod } from './api';
import { CHART_LIQUIDATION_LINE, CHART_Y_FLOOR, CHART_Y_TICKS, CHART_Y_TOP } from './constants';
import { ACTION_LABELS } from './history';
import { collateralRatio } from './ratio';
import { centsToUnitString, isKnownPrice, satsToBtcString, type PriceInput } from './units';

export interface ChartInterval {
  period: TimePeriod;
  label: string;
  buckets: number;
  bucketSeconds: number;
}

export const CHART_INTERVALS: Record<TimePeriod, ChartInterval> = {
  '24h': { period: '24h', label: '1D', buckets: 288, bucketSeconds: 5 * 60 },
  '7d': { period: '7d', label: '1W', buckets: 168, bucketSeconds: 60 * 60 },
  '30d': { period: '30d', label: '1M', buckets: 120, bucketSeconds: 6 * 60 * 60 },
  '1y': { period: '1y', label: 'YTD', buckets: 365, bucketSeconds: 24 * 60 * 60 },
};

/** Button order of the chart (SPEC §2). */
export const CHART_PERIODS: readonly TimePeriod[] = ['24h', '7d', '30d', '1y'];

export const CHART_Y_AXIS = {
  min: CHART_Y_FLOOR,
  max: CHART_Y_TOP,
  ticks: CHART_Y_TICKS,
  liquidationLine: CHART_LIQUIDATION_LINE,
} as const;

export interface RatioPoint {
  /** unix seconds, end of the bucket */
  timestamp: number;
  /** the collateral ratio at that time (Infinity with no debt) */
  ratio: number;
  /** the ratio clamped to the axis, 125..500 */
  plotted: number;
}

export function clampToChart(ratio: number): number {
  if (Number.isNaN(ratio)) return CHART_Y_FLOOR;
  return Math.min(CHART_Y_TOP, Math.max(CHART_Y_FLOOR, ratio));
}

/** Index of the last element with timestamp <= t in an ascending list, or -1. */
function lastAtOrBefore<T extends { timestamp: number }>(sorted: readonly T[], t: number): number {
  let lo = 0;
  let hi = sorted.length - 1;
  let found = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (sorted[mid]!.timestamp <= t) {
      found = mid;
      lo = mid + 1;
    } else {
      hi = mid - 1;
    }
  }
  return found;
}

/** The vault's state from a moment on: sats locked and UNIT hundredths owed (SPEC §3 History point). */
export interface VaultStateAt {
  timestamp: number;
  btc_locked: number;
  unit_borrowed: number;
}

/**
 * The states the line is drawn from: the points route's, and before its first point the states the
 * vault's history records give (each record holds the state after it). A points answer that starts
 * inside the interval does not say what the vault held at the interval's start; the history does.
 */
export function chartStates(
  points: readonly VaultStateAt[],
  records: readonly { timestamp: number; vault_amount: number; amount_borrowed: number }[],
): VaultStateAt[] {
  const first = points.reduce((t, p) => Math.min(t, p.timestamp), Infinity);
  const before = records
    .filter((r) => r.timestamp < first)
    .map((r) => ({
      timestamp: r.timestamp,
      btc_locked: r.vault_amount,
      unit_borrowed: r.amount_borrowed,
    }));
  return [...before, ...points];
}

/** One point of the ratio line. */
export interface RatioLinePoint extends RatioPoint {
  /** the USD price the ratio was computed at */
  priceUsd: number;
  /** the action taken at this moment, on marker points */
  action?: ActionCode;
}

export interface RatioLine {
  /** unix seconds the x axis starts at: the interval's start (now minus the period), always */
  start: number;
  /** unix seconds the x axis ends at: now */
  end: number;
  /**
   * in time order, a step function: each point's ratio holds until the next point. A state change
   * is two points at the same second (before, after); a price change is one point at its time.
   */
  points: RatioLinePoint[];
  /** one per action inside the axis, at the ratio the vault had just after it */
  markers: ChartMarker[];
}

/** An action on the chart: where it sits, and what the tooltip says of it. */
export interface ChartMarker extends RatioLinePoint {
  action: ActionCode;
  /** the record's amounts: sats and UNIT hundredths moved (0 when the record has none) */
  btcAmt: number;
  unitAmt: number;
}

/** A history record as the chart reads it: its moment, its action, and the state after it. */
export interface ChartAction {
  timestamp: number;
  action: ActionCode;
  /** whole USD, as the history stores it: the price at that very moment */
  oracle_price?: number;
  /** the state after the action (SPEC §3 vault_amount, amount_borrowed) */
  vault_amount?: number;
  amount_borrowed?: number;
  btc_amt?: number;
  unit_amt?: number;
}

/** The actions drawn on the line: every action code (SPEC §3), liquidation and claim too. */
export const CHART_MARKER_ACTIONS: readonly ActionCode[] = [
  'o',
  'd',
  'w',
  'b',
  'r',
  'l',
  'x',
  's',
  'e',
];

/** Each action's marker letter, its code in capitals (the tooltip names it in full: ACTION_LABELS). */
export const CHART_MARKER_LETTERS = Object.fromEntries(
  CHART_MARKER_ACTIONS.map((code) => [code, code.toUpperCase()]),
) as Record<ActionCode, string>;

export interface RatioLineInput {
  /** the vault's states (GET /api/vaults/:id/points), any order */
  states: readonly VaultStateAt[];
  /**
   * the interval's price buckets (GET /api/price-history), any order: each stamped with its
   * bucket's start and holding the bucket's close, so the price is known at the bucket's end
   */
  prices: readonly PricePointDto[];
  /**
   * actions to mark: the vault history's records. Their oracle_price (whole USD, as the history
   * stores it) is the price at that very moment.
   */
  actions?: readonly ChartAction[];
  period: TimePeriod;
  /** unix seconds */
  now: number;
  /** unix seconds the vault opened; the first state's time when not given */
  openedAt?: number;
  /** the state and price on screen now (the gauge's), so the line ends where the gauge reads */
  current?: { btc_locked: number; unit_borrowed: number; priceUsd: PriceInput };
}

/**
 * The collateral ratio line over an interval (SPEC §2 Chart, §9), as a step function of time: the
 * vault's state at each moment (the last state at or before it) times the price then. The axis
 * always spans the whole period, now minus the period to now, so 1D, 1W, 1M and YTD differ and the
 * axis does not move with the data; the vault's life sits inside it, nothing before its opening.
 *
 * A price bucket holds its close, the last tick inside it, so the price steps at the bucket's end
 * (or now, for the bucket now is in), never before the move: a move is drawn at most one bucket
 * late (5 minutes on 1D), never early. Each action steps the line at its own second, at its own
 * oracle price (whole dollars: the history stores no cents), so its marker reads the ratio the
 * action saw; every price, whole or not, is formatted as the header formats it (formatUsd).
 */
export function ratioLine(input: RatioLineInput): RatioLine {
  const { period, now } = input;
  const { buckets, bucketSeconds } = CHART_INTERVALS[period];
  // The screen's clock ticks once a minute: an action newer than it moves the end to itself, so
  // it is drawn and marked at once rather than a minute later.
  const latest = Math.max(
    ...input.states.map((s) => s.timestamp),
    ...(input.actions ?? []).map((a) => a.timestamp),
  );
  const end = Number.isFinite(latest) && latest > now && latest - now < 3600 ? latest : now;
  const start = end - buckets * bucketSeconds;
  const states = [...input.states]
    .filter((s) => s.timestamp <= end)
    .sort((a, b) => a.timestamp - b.timestamp);
  if (input.current) {
    const last = states.at(-1);
    const { btc_locked, unit_borrowed } = input.current;
    // The current state is in force now; it differs from the last point while the points lag.
    if (!last || last.btc_locked !== btc_locked || last.unit_borrowed !== unit_borrowed)
      states.push({ timestamp: end, btc_locked, unit_borrowed });
  }
  // Each action's own oracle price is an observation at its very second, finer than a bucket: the
  // line steps to it there (a liquidation is drawn at the ratio that liquidated it), until the
  // next bucket's close. At equal times the action's price comes last, so it wins.
  const observed = (input.actions ?? [])
    .filter((a) => a.timestamp <= end)
    .map((a) => ({ timestamp: a.timestamp, price: a.oracle_price ?? NaN }));
  const prices = [
    ...input.prices.map((p) => ({
      timestamp: Math.min(end, p.timestamp + bucketSeconds),
      price: p.price,
    })),
    ...observed,
  ]
    .filter((p) => isKnownPrice(p.price))
    .sort((a, b) => a.timestamp - b.timestamp);
  const openedAt = Math.max(start, input.openedAt ?? states[0]?.timestamp ?? end);
  const currentPrice = input.current?.priceUsd;

  const priceAt = (t: number): number => {
    if (t >= end && isKnownPrice(currentPrice)) return currentPrice;
    const i = lastAtOrBefore(prices, t);
    return prices[Math.max(i, 0)]?.price ?? NaN;
  };
  const pointAt = (t: number, state: VaultStateAt, action?: ActionCode): RatioLinePoint => {
    const priceUsd = priceAt(t);
    const ratio = collateralRatio(state.btc_locked, state.unit_borrowed, priceUsd);
    return {
      timestamp: t,
      ratio,
      plotted: clampToChart(ratio),
      priceUsd,
      ...(action ? { action } : {}),
    };
  };

  // Every moment the ratio can change inside the vault's life: its start, each price step, each
  // state change, now.
  const moments = new Set<number>([openedAt, end]);
  for (const p of prices) if (p.timestamp > openedAt && p.timestamp < end) moments.add(p.timestamp);
  const changes = new Set<number>();
  for (const s of states)
    if (s.timestamp > openedAt && s.timestamp <= end) {
      moments.add(s.timestamp);
      changes.add(s.timestamp);
    }
  const points: RatioLinePoint[] = [];
  for (const t of [...moments].sort((a, b) => a - b)) {
    const i = lastAtOrBefore(states, t);
    if (i < 0) continue;
    // The state just before a change, so the line steps at the action rather than slanting to it.
    if (changes.has(t)) {
      const before = lastAtOrBefore(states, t - 1);
      if (before >= 0) points.push(pointAt(t, states[before]!));
    }
    points.push(pointAt(t, states[i]!));
  }

  const markers = chartMarkers(input.actions ?? [], { start, end, states, priceAt });
  return { start, end, points, markers };
}

/**
 * Each action at the ratio the vault really had just after it: the state its own record holds at
 * the oracle price of that very second (the line's state and price stand in where the record
 * lacks them). A claim empties the vault, so its marker reads the state before it, where the line
 * ended. Never a height of the drawing's own: markers close together are the plot's to group.
 */
function chartMarkers(
  actions: readonly ChartAction[],
  line: {
    start: number;
    end: number;
    states: readonly VaultStateAt[];
    priceAt: (t: number) => number;
  },
): ChartMarker[] {
  const byTime = [...actions].sort((a, b) => a.timestamp - b.timestamp);
  const stateOf = (a: ChartAction | undefined, t: number): VaultStateAt | null => {
    if (a?.vault_amount != null && a.amount_borrowed != null)
      return {
        timestamp: a.timestamp,
        btc_locked: a.vault_amount,
        unit_borrowed: a.amount_borrowed,
      };
    const i = lastAtOrBefore(line.states, t);
    return i >= 0 ? line.states[i]! : null;
  };
  const markers: ChartMarker[] = [];
  byTime.forEach((a, i) => {
    if (!CHART_MARKER_ACTIONS.includes(a.action) || a.timestamp < line.start) return;
    if (a.timestamp > line.end) return;
    const price = isKnownPrice(a.oracle_price) ? a.oracle_price : line.priceAt(a.timestamp);
    let state = stateOf(a, a.timestamp);
    if (!state) return;
    let ratio = collateralRatio(state.btc_locked, state.unit_borrowed, price);
    if (!Number.isFinite(ratio)) {
      state = stateOf(byTime[i - 1], a.timestamp - 1);
      if (state) ratio = collateralRatio(state.btc_locked, state.unit_borrowed, price);
    }
    markers.push({
      timestamp: a.timestamp,
      ratio,
      plotted: clampToChart(ratio),
      priceUsd: price,
      action: a.action,
      btcAmt: a.btc_amt ?? 0,
      unitAmt: a.unit_amt ?? 0,
    });
  });
  return markers;
}

/** What a marker's tooltip says the action moved: '0.5 BTC deposited', '400.00 UNIT repaid'. */
export function markerAmountText(marker: Pick<ChartMarker, 'action' | 'btcAmt' | 'unitAmt'>) {
  const btc = `${satsToBtcString(marker.btcAmt)} BTC`;
  const unit = `${centsToUnitString(marker.unitAmt)} UNIT`;
  switch (marker.action) {
    case 'o':
      return `${btc} deposited, ${unit} borrowed`;
    case 'd':
      return `${btc} deposited`;
    case 'w':
      return `${btc} withdrawn`;
    case 'b':
      return `${unit} borrowed`;
    case 'r':
      return `${unit} repaid`;
    case 'l':
      return `${btc} of collateral and ${unit} of debt opened to claimants`;
    case 'x':
      return `${btc} of collateral and ${unit} of debt claimed`;
    case 's':
      return `${unit} of debt repaid from ${btc} of collateral at the term, the rest returned to the owner`;
    case 'e':
      return `${btc} of collateral taken by the owner through the exit, ${unit} of debt left unpaid`;
  }
}

/** A marker in words, for its tooltip and its accessible name. */
export function markerDescription(marker: ChartMarker, when: string): string {
  return `${ACTION_LABELS[marker.action]}: ${markerAmountText(marker)} on ${when}.`;
}

/** The figures a reader of the chart needs first: the ratio now, and its lowest and highest. */
export interface RatioSummary {
  current: number;
  min: number;
  max: number;
}

/** Over the line's points with debt (a finite ratio); null when there are none. */
export function ratioSummary(points: readonly RatioPoint[]): RatioSummary | null {
  const finite = points.filter((p) => Number.isFinite(p.ratio));
  if (finite.length === 0) return null;
  const ratios = finite.map((p) => p.ratio);
  return {
    current: points.at(-1)!.ratio,
    min: Math.min(...ratios),
    max: Math.max(...ratios),
  };
}

// Collateral ratio chart (SPEC §2 Chart, §9): intervals, axis and the bucketed ratio series.
import type { ActionCode, PricePointDto, TimePeriod } from './api';
import { CHART_LIQUIDATION_LINE, CHART_Y_FLOOR, CHART_Y_TICKS, CHART_Y_TOP } from './constants';
import { collateralRatio } from './ratio';
import { isKnownPrice, type PriceInput } from './units';

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
  /** one per action inside the axis, on the line */
  markers: RatioLinePoint[];
}

/** The actions drawn on the line: every action code (SPEC §3), liquidation and claim too. */
export const CHART_MARKER_ACTIONS: readonly ActionCode[] = ['o', 'd', 'w', 'b', 'r', 'l', 'x'];

/** The marker's letter for each action (the tooltip names it in full: ACTION_LABELS). */
export const CHART_MARKER_LETTERS: Record<ActionCode, string> = {
  o: 'O',
  d: 'D',
  w: 'W',
  b: 'B',
  r: 'R',
  l: 'L',
  x: 'X',
};

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
  actions?: readonly { timestamp: number; action: ActionCode; oracle_price?: number }[];
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

  const markers: RatioLinePoint[] = [];
  for (const a of input.actions ?? []) {
    if (!CHART_MARKER_ACTIONS.includes(a.action) || a.timestamp < start || a.timestamp > end)
      continue;
    const after = lastAtOrBefore(states, a.timestamp);
    if (after < 0) continue;
    let point = pointAt(a.timestamp, states[after]!, a.action);
    // A claim empties the vault (no ratio after it): its marker sits where the line ended.
    if (!Number.isFinite(point.ratio)) {
      const before = lastAtOrBefore(states, a.timestamp - 1);
      if (before >= 0) point = pointAt(a.timestamp, states[before]!, a.action);
    }
    markers.push(point);
  }
  markers.sort((a, b) => a.timestamp - b.timestamp);
  return { start, end, points, markers };
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

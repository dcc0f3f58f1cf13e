// The health gauge's drawing (SPEC §2 Gauge, §9): red, yellow and green arcs from 135% to 230%,
// and where a ratio's marker sits on them. One drawing for the dashboard's gauge and the server's
// first paint of it, so the two cannot differ.
import { HEALTH_BANDS, LIQUIDATION_THRESHOLD_PERCENT } from './constants';
import type { GAUGE_ARCS } from './ratio';

const GAUGE_MIN = LIQUIDATION_THRESHOLD_PERCENT;
const GAUGE_MAX = HEALTH_BANDS.healthy.max;
/** The gap between two arcs, in radians. */
const PAD = 0.015;
const INNER = 70;
const OUTER = 90;
const MARKER_RADIUS = 100;

/** The ratio's angle from 12 o'clock: -90° at 135%, +90° at 230% (clamped to them). */
function angle(ratio: number): number {
  const clamped = Math.min(GAUGE_MAX, Math.max(GAUGE_MIN, ratio));
  return -Math.PI / 2 + ((clamped - GAUGE_MIN) / (GAUGE_MAX - GAUGE_MIN)) * Math.PI;
}

const point = (a: number, r: number) =>
  `${(Math.sin(a) * r).toFixed(2)} ${(-Math.cos(a) * r).toFixed(2)}`;

/** An arc's SVG path, in the gauge's viewBox (-110 -110 220 130). */
export function gaugeArcPath(arc: (typeof GAUGE_ARCS)[number]): string {
  const a0 = angle(arc.from) + PAD;
  const a1 = angle(arc.to) - PAD;
  return `M ${point(a0, OUTER)} A ${OUTER} ${OUTER} 0 0 1 ${point(a1, OUTER)} L ${point(a1, INNER)} A ${INNER} ${INNER} 0 0 0 ${point(a0, INNER)} Z`;
}

/** Where the vault's marker sits; without debt nothing can be liquidated: at the healthy end. */
export function gaugeMarker(ratio: number, hasDebt: boolean): { x: number; y: number } {
  const a = angle(hasDebt ? ratio : GAUGE_MAX);
  return { x: Math.sin(a) * MARKER_RADIUS, y: -Math.cos(a) * MARKER_RADIUS };
}

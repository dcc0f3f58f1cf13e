// The ratio chart's drawing rules without its interactive parts: sizes, margins, the scales and
// the ratio's step line. One drawing for the web's chart (apps/web/src/chart), its light sketch,
// and the server's first paint of that sketch (apps/server/src/http/first-dashboard.ts).
import { CHART_Y_AXIS, type RatioLinePoint } from './chart';

/** Drawing heights; the width is the card's own, measured, so 11 px labels stay 11 px. */
export const CHART_HEIGHT = { wide: 300, compact: 260 } as const;
/** Widths used until the card is measured (and where nothing measures: tests). */
export const CHART_FALLBACK_WIDTH = { wide: 800, compact: 360 } as const;
export const CHART_MARGIN = { top: 14, right: 12, bottom: 28, left: 52 };

/** A linear map from a domain onto a range, clamped to the range. */
export function linearScale([d0, d1]: [number, number], [r0, r1]: [number, number]) {
  const span = d1 - d0 || 1;
  const lo = Math.min(r0, r1);
  const hi = Math.max(r0, r1);
  return (v: number) => Math.min(hi, Math.max(lo, r0 + ((v - d0) / span) * (r1 - r0)));
}

/** The ratio's vertical scale over a drawing `height` high: the axis is fixed (SPEC §9). */
export const ratioScale = (height: number) =>
  linearScale(
    [CHART_Y_AXIS.min, CHART_Y_AXIS.max],
    [height - CHART_MARGIN.bottom, CHART_MARGIN.top],
  );

const num = (v: number) => String(Math.round(v * 100) / 100);

/** Runs of consecutive points with a finite ratio: the line breaks where the ratio is not one. */
function runs(points: readonly RatioLinePoint[]): RatioLinePoint[][] {
  const out: RatioLinePoint[][] = [];
  let run: RatioLinePoint[] = [];
  for (const p of points) {
    if (Number.isFinite(p.ratio)) run.push(p);
    else if (run.length > 0) {
      out.push(run);
      run = [];
    }
  }
  if (run.length > 0) out.push(run);
  return out;
}

/** One run as steps: the ratio holds until the next price tick or action, then moves. */
function steps(run: RatioLinePoint[], x: (t: number) => number, y: (r: number) => number) {
  let d = `M${num(x(run[0]!.timestamp))},${num(y(run[0]!.plotted))}`;
  for (let i = 1; i < run.length; i++) {
    const p = run[i]!;
    d += `L${num(x(p.timestamp))},${num(y(run[i - 1]!.plotted))}L${num(x(p.timestamp))},${num(y(p.plotted))}`;
  }
  return d;
}

/** The ratio line as an SVG path (empty when no point has a ratio). */
export function stepLine(
  points: readonly RatioLinePoint[],
  x: (t: number) => number,
  y: (r: number) => number,
): string {
  return runs(points)
    .map((run) => steps(run, x, y))
    .join('');
}

/** The shade under the line, down to `base`. */
export function stepArea(
  points: readonly RatioLinePoint[],
  x: (t: number) => number,
  y: (r: number) => number,
  base: number,
): string {
  return runs(points)
    .map((run) => {
      const first = num(x(run[0]!.timestamp));
      const last = num(x(run.at(-1)!.timestamp));
      return `${steps(run, x, y)}L${last},${num(base)}L${first},${num(base)}Z`;
    })
    .join('');
}

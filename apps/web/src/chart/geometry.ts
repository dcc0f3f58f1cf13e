// The chart's drawing rules (@unit/protocol's chart-drawing.ts: one drawing for the chart, its
// sketch and the server's first paint of the sketch), and the plot's last measured size.
export {
  CHART_FALLBACK_WIDTH as FALLBACK_WIDTH,
  CHART_HEIGHT as HEIGHT,
  CHART_MARGIN as M,
  linearScale as linear,
  ratioScale,
  stepArea,
  stepLine,
} from '@unit/protocol';

/**
 * The last size of the plot measured, so a plot mounted again (another interval, once its data
 * arrives; the full chart after its sketch) draws at the card's width from its first frame rather
 * than at the fallback and then jumping.
 */
let lastSize: { width: number; height: number } | null = null;
export const knownSize = () => lastSize;
export const keepSize = (size: { width: number; height: number }) => (lastSize = size);
/** Tests: forget the measured size, as a new page would not know it. */
export const forgetSize = () => void (lastSize = null);

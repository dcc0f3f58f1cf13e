// Where prices come from. The devnet's default is a simulated feed: a seeded random walk, so a
// devnet's history is reproducible and the app works offline (ARCHITECTURE.md, Configuration).
// Real networks read live feeds (feeds.ts).
import type { PricePoint } from '../store/prices';
import type { PriceReading } from '@unit/guardian-net/price';

export interface PriceSource {
  readonly name: string;
  /** The price at `timestamp` given the previous point. */
  next(previous: PricePoint, timestamp: number): number;
  /**
   * Back-fill: prices for `timestamps` (ascending, all before `anchor.timestamp`) that end at the
   * anchor, so the stored history joins today's price.
   */
  history(anchor: PricePoint, timestamps: number[]): PricePoint[];
}

/** A source that is read each tick (the public price feeds) rather than computed. */
export interface LivePriceSource {
  readonly name: string;
  readonly live: true;
  read(): Promise<PriceReading>;
}

export const isLivePriceSource = (
  source: PriceSource | LivePriceSource,
): source is LivePriceSource => 'live' in source && source.live;

const SECONDS_PER_YEAR = 365 * 86_400;
/** Annualised volatility of the walk: in the range Bitcoin has shown for years. */
const ANNUAL_VOLATILITY = 0.5;
/** Never simulate below $1: the walk is multiplicative, so it only nears it in absurd runs. */
const FLOOR_CENTS = 100;

/** mulberry32: tiny, fast, good enough for a simulated market. */
function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

export class SimulatedPriceSource implements PriceSource {
  readonly name = 'simulated';
  private readonly random: () => number;

  constructor(seed: number) {
    this.random = seededRandom(seed);
  }

  /** A standard normal draw (Box-Muller). */
  private gaussian(): number {
    const u = 1 - this.random();
    const v = this.random();
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
  }

  private step(cents: number, seconds: number, direction: 1 | -1): number {
    const sigma = ANNUAL_VOLATILITY * Math.sqrt(Math.max(seconds, 1) / SECONDS_PER_YEAR);
    const moved = cents * Math.exp(direction * sigma * this.gaussian());
    return Math.max(FLOOR_CENTS, Math.round(moved));
  }

  next(previous: PricePoint, timestamp: number): number {
    return this.step(previous.priceCents, timestamp - previous.timestamp, 1);
  }

  history(anchor: PricePoint, timestamps: number[]): PricePoint[] {
    const out: PricePoint[] = [];
    let later = anchor;
    for (let i = timestamps.length - 1; i >= 0; i--) {
      const timestamp = timestamps[i]!;
      const priceCents = this.step(later.priceCents, later.timestamp - timestamp, -1);
      later = { timestamp, priceCents };
      out.push(later);
    }
    return out.reverse();
  }
}

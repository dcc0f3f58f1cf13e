// A guardian approves a liquidation only when its own latest fresh price is at or under the
// vault's threshold: the coordinator's word, another guardian's price and the
// quorum's median count for nothing here, so t-1 lying guardians or a lying coordinator cannot
// have a healthy vault liquidated.
import type { Decision } from '../signing-rounds';
import type { OwnPrice } from './own-price';

/** The `context` of a `sign/propose` for a liquidation. */
export interface LiquidationContext {
  kind: 'liquidation';
  /** the vault's liquidation price, USD cents per BTC */
  thresholdCents: number;
}

const usd = (cents: number) =>
  `$${(cents / 100).toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 })}`;

/**
 * Null when `context` is not a liquidation (the rest of the policy decides); otherwise this
 * guardian's own decision on its price. A context that says liquidation but names no valid
 * threshold is refused.
 */
export function liquidationDecision(context: unknown, own: OwnPrice | null): Decision | null {
  if (typeof context !== 'object' || context === null) return null;
  const c = context as Record<string, unknown>;
  if (c.kind !== 'liquidation') return null;
  const th = c.thresholdCents;
  if (typeof th !== 'number' || !Number.isSafeInteger(th) || th <= 0)
    return { approve: false, reason: 'a liquidation needs a positive integer thresholdCents' };
  if (!own) return { approve: false, reason: 'this guardian has no price feeds' };
  if (!own.fresh)
    return { approve: false, reason: `this guardian has no fresh price (${own.reason})` };
  const { priceCents } = own.price;
  return priceCents <= th
    ? { approve: true }
    : {
        approve: false,
        reason: `this guardian's price ${usd(priceCents)} is above the threshold ${usd(th)}`,
      };
}

// `guardian start`'s price flags (cli.ts): its own feeds (--feeds, else feeds.txt in its directory),
// their tick, time-out and the spread its fresh answers may have around their median.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { GUARDIAN_FEED_KINDS, parsePriceFeeds } from './price/feeds';
import type { NodePriceOptions } from './node-options';

export const positiveInt = (text: string | undefined, what: string): number | undefined => {
  if (text === undefined) return undefined;
  const n = Number(text);
  if (!Number.isSafeInteger(n) || n <= 0) throw new Error(`${what} must be a positive integer`);
  return n;
};

/** A guardian's own feeds: --feeds, else the feeds.txt its operator put in its directory. */
export function priceOptions(
  dir: string,
  values: { feeds?: string; 'price-tick'?: string; 'feed-timeout'?: string; 'max-spread'?: string },
): NodePriceOptions | undefined {
  const file = join(dir, 'feeds.txt');
  const text = values.feeds ?? (existsSync(file) ? readFileSync(file, 'utf8') : '');
  const setting = values.feeds === undefined ? file : '--feeds';
  const { feeds, problems } = parsePriceFeeds(
    text.replace(/\s+/g, ','),
    setting,
    GUARDIAN_FEED_KINDS,
  );
  if (problems.length > 0) throw new Error(problems.join('; '));
  if (feeds.length === 0) return undefined;
  const tickMs = positiveInt(values['price-tick'], '--price-tick');
  const timeoutMs = positiveInt(values['feed-timeout'], '--feed-timeout');
  const spread = positiveInt(values['max-spread'], '--max-spread');
  if (spread !== undefined && (spread < 100 || spread > 5_000))
    throw new Error('--max-spread must be basis points from 100 to 5000 (1% to 50%)');
  return {
    feeds,
    ...(tickMs ? { tickMs } : {}),
    ...(timeoutMs ? { timeoutMs } : {}),
    ...(spread ? { maxSpreadBasisPoints: spread } : {}),
  };
}

import { useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import {
  formatPriceChange,
  formatUsd,
  nextPriceChangePeriod,
  periodPriceChange,
  type TimePeriod,
} from '@unit/protocol';
import { formatPriceTime, isPriceStale, useBitcoinPrice } from '../api/bitcoin-price';
import { priceHistoryQueryOptions } from '../api/price-history';
import { Skeleton } from '../ui/Skeleton';
import { useNow } from '../ui/useNow';

const ARROWS = { up: '▲', down: '▼', flat: '' } as const;

/**
 * Live BTC price; says 'Price as of hh:mm' once a refetch or an oracle tick was missed, or as soon
 * as the oracle says its feeds give no fresh price (vault actions then wait for one).
 */
export function PriceBanner() {
  const price = useBitcoinPrice();
  const now = useNow(5_000);
  if (!price.data)
    return (
      <div className="price-banner" aria-busy="true">
        <span className="price-banner__label">BTC</span>
        <Skeleton width="7ch" />
      </div>
    );
  const stale = isPriceStale(price.data, now);
  return (
    <div className={`price-banner ${stale ? 'price-banner--stale' : ''}`}>
      <span className="price-banner__label">BTC</span>
      <strong className="num" aria-live="polite">
        {formatUsd(price.data.USD)}
      </strong>
      <PriceChange nowUsd={price.data.USD} />
      {stale && (
        <span className="price-banner__stale">Price as of {formatPriceTime(price.data.time)}</span>
      )}
    </div>
  );
}

/**
 * SPEC §9: the price change over a period; a click moves to the next of 24h, 7d, 30d, 1y. The
 * percent runs from the first price of GET /api/price-history for that period (the chart's own
 * query, so the 24h figure usually costs no extra request) to the price the header shows, so it
 * follows every tick rather than the series' age.
 */
function PriceChange({ nowUsd }: { nowUsd: number }) {
  const [period, setPeriod] = useState<TimePeriod>('24h');
  const history = useQuery(priceHistoryQueryOptions(period));
  const percent = history.data ? periodPriceChange(history.data.data, nowUsd) : null;
  const change = percent === null ? null : formatPriceChange(percent);
  return (
    <button
      type="button"
      className={`price-change price-change--${change?.direction ?? 'flat'}`}
      onClick={() => setPeriod(nextPriceChangePeriod)}
      title="Show the next period"
    >
      <span className="sr-only">Price change </span>
      {change ? (
        <span className="num">
          {ARROWS[change.direction] && <span aria-hidden="true">{ARROWS[change.direction]} </span>}
          {change.text}
        </span>
      ) : (
        <Skeleton width="5ch" />
      )}{' '}
      <span className="price-change__period">{period}</span>
    </button>
  );
}

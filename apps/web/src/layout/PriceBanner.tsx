import { formatUsd } from '@unit/protocol';
import { PRICE_STALE_AFTER_MS, useBitcoinPrice } from '../api/bitcoin-price';
import { Skeleton } from '../ui/Skeleton';
import { useNow } from '../ui/useNow';

// Intl rather than date-fns: this banner is in the initial chunk (bundle budget).
const hhmm = new Intl.DateTimeFormat('en-GB', {
  hour: '2-digit',
  minute: '2-digit',
  hourCycle: 'h23',
});

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
  const ageMs = now - price.data.time * 1000;
  const stale = price.data.stale === true || ageMs > PRICE_STALE_AFTER_MS;
  return (
    <div className={`price-banner ${stale ? 'price-banner--stale' : ''}`} aria-live="polite">
      <span className="price-banner__label">BTC</span>
      <strong className="num">{formatUsd(price.data.USD)}</strong>
      {stale && (
        <span className="price-banner__stale">
          Price as of {hhmm.format(new Date(price.data.time * 1000))}
        </span>
      )}
    </div>
  );
}

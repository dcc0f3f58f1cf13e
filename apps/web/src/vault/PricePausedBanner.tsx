import { CirclePause } from 'lucide-react';
import { usePricePause } from '../api/bitcoin-price';

/**
 * Said before any click: while the server says the price is stale, vault actions are paused (every
 * action needs a freshly signed price). The cause, the time of the last fresh price and what to do;
 * the action buttons carry the same cause as their disabled reason.
 */
export function PricePausedBanner() {
  const pause = usePricePause();
  if (!pause) return null;
  return (
    <div className="banner banner--warning" role="status" data-testid="price-paused">
      <span className="banner__mark" aria-hidden="true">
        <CirclePause size={18} />
      </span>
      <div className="banner__body">
        <p className="banner__title">
          <strong>{pause.title}</strong>
        </p>
        <p className="banner__text banner__text--strong">{pause.cause}</p>
        <p className="banner__text">{pause.whatToDo}</p>
      </div>
    </div>
  );
}

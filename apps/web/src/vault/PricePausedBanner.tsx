import { CirclePause } from 'lucide-react';
import { usePricePause } from '../api/bitcoin-price';
import { NoticeBanner } from '../ui/NoticeBanner';

/**
 * Said before any click: while the server says the price is stale, vault actions are paused (every
 * action needs a freshly signed price). The cause, the time of the last fresh price and what to do;
 * the action buttons carry the same cause as their disabled reason.
 */
export function PricePausedBanner() {
  const pause = usePricePause();
  if (!pause) return null;
  return (
    <NoticeBanner
      tone="warning"
      testId="price-paused"
      mark={<CirclePause size={18} />}
      title={pause.title}
      cause={pause.cause}
      whatToDo={pause.whatToDo}
    />
  );
}

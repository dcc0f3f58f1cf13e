import { useEffect, useState } from 'react';
import { CONTENT, RETRY_COUNTDOWN_SECONDS } from '@unit/protocol';

/** SPEC §4: Try again is enabled after a 30 s countdown. */
export function RetryCountdown({ onRetry }: { onRetry: () => void }) {
  const [left, setLeft] = useState(RETRY_COUNTDOWN_SECONDS);
  useEffect(() => {
    if (left <= 0) return;
    const t = setTimeout(() => setLeft((n) => n - 1), 1000);
    return () => clearTimeout(t);
  }, [left]);
  return (
    <button type="button" className="btn" disabled={left > 0} onClick={onRetry}>
      {left > 0 ? `Try again (${left}s)` : CONTENT.actionDrawer.tryAgain}
    </button>
  );
}

import { useLocation, useSearchParams } from 'react-router';
import { useConfig } from '../api/config';

// The drill throws for the first location that asks for it and for React's own retry of that
// render, but not after 'Try again', which navigates to a new location (a new key).
let drillKey: string | null = null;
function drillFor(locationKey: string): boolean {
  drillKey ??= locationKey;
  return drillKey === locationKey;
}

/**
 * Devnet only: `/?devnet-crash=render` throws while rendering, a real render error through the real
 * error boundary, so the error screen (SPEC §2 Other) can be seen and tested. Like the devnet price
 * control, it does nothing on any other network.
 */
export function CrashDrill() {
  const config = useConfig();
  const location = useLocation();
  const [params] = useSearchParams();
  if (
    config.network === 'devnet' &&
    params.get('devnet-crash') === 'render' &&
    drillFor(location.key)
  )
    throw new Error('Devnet crash drill: a deliberate render error');
  return null;
}

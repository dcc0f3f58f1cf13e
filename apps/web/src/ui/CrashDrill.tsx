import { useLocation, useSearchParams } from 'react-router';
import { useConfig } from '../api/config';
import { useContainedAttempt } from './ContainedError';

export type CrashDrillKind = 'render' | 'chart';

// The drill throws for the first location that asks for it and for React's own retry of that
// render, but not after 'Try again', which navigates to a new location (a new key) or remounts.
const drillKeys = new Map<CrashDrillKind, string>();
function drillFor(kind: CrashDrillKind, locationKey: string): boolean {
  if (!drillKeys.has(kind)) drillKeys.set(kind, locationKey);
  return drillKeys.get(kind) === locationKey;
}

/**
 * Devnet only: `/?devnet-crash=render` throws while rendering the page and `/?devnet-crash=chart`
 * inside the dashboard's chart, real render errors through the real boundaries, so the error screen
 * (SPEC §2 Other) and a contained chart error (SPEC §8) can be seen and tested. Like the devnet
 * price control, it does nothing on any other network.
 */
export function CrashDrill({ kind = 'render' }: { kind?: CrashDrillKind }) {
  const config = useConfig();
  const location = useLocation();
  const [params] = useSearchParams();
  // A contained part's Try again re-renders at the same location: the chart drill throws only
  // until the first retry.
  const attempt = useContainedAttempt();
  if (config.network !== 'devnet' || params.get('devnet-crash') !== kind) return null;
  if (kind === 'render' && drillFor(kind, location.key))
    throw new Error('Devnet crash drill: a deliberate render error');
  if (kind === 'chart' && attempt === 0)
    throw new Error('Devnet crash drill: a deliberate chart error');
  return null;
}

// Sends what an error boundary caught to POST /api/client-errors, where the server logs it: that is
// what makes the error screen's 'Our team has been notified' (SPEC §2 Other) and SPEC §8's 'Chart
// errors are caught and reported' true. Best effort: a report that cannot be sent is dropped, never
// retried and never thrown, since it runs while the page is already failing.

import { callApi } from './call';

export type ErrorBoundaryKind = 'screen' | 'chart';

// Bounded like the server's schema (apps/server/src/http/client-errors.ts), so a report is never
// refused for its size.
const MAX_MESSAGE = 1_000;
const MAX_STACK = 6_000;
/** A render loop must not flood the server: a page reports a few distinct errors at most. */
const MAX_REPORTS_PER_PAGE = 5;

const sent = new Set<string>();

export function reportClientError(
  boundary: ErrorBoundaryKind,
  error: unknown,
  componentStack?: string | null,
): void {
  const err = error instanceof Error ? error : new Error(String(error));
  const key = `${boundary}:${err.message}`;
  if (sent.has(key) || sent.size >= MAX_REPORTS_PER_PAGE) return;
  sent.add(key);
  const body = {
    boundary,
    message: err.message.slice(0, MAX_MESSAGE) || err.name,
    ...(err.stack ? { stack: err.stack.slice(0, MAX_STACK) } : {}),
    ...(componentStack ? { componentStack: componentStack.slice(0, MAX_STACK) } : {}),
    path: `${window.location.pathname}${window.location.search}`.slice(0, 500),
  };
  try {
    // the report still leaves if the user reloads at once
    void callApi('clientErrors', { body }, { keepalive: true }).catch(() => undefined);
  } catch {
    // no fetch (or a refused URL): nothing more can be done from a failing page
  }
}

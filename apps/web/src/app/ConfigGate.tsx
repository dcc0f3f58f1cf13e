import { useLayoutEffect, type ReactNode } from 'react';
import { ConfigContext, useConfigQuery } from '../api/config';
import { ErrorScreen } from './ErrorScreen';
import { prerenderedShell, removePrerenderedShell } from './prerendered-shell';

/**
 * The config is loaded first: every URL and configurable constant comes from it. Meanwhile the
 * shell prerendered into index.html stays on screen (first paint); without one (tests,
 * development) a spinner says it is loading. Whatever comes next replaces the shell.
 */
export function ConfigGate({ children }: { children: ReactNode }) {
  const query = useConfigQuery();
  const pending = query.isPending;
  useLayoutEffect(() => {
    if (!pending) removePrerenderedShell();
  }, [pending]);
  if (pending)
    return prerenderedShell() ? null : (
      <div className="app-loading" role="status" aria-live="polite">
        <span className="spinner" aria-hidden="true" />
        Loading…
      </div>
    );
  if (query.isError) return <ErrorScreen onTryAgain={() => void query.refetch()} />;
  return <ConfigContext.Provider value={query.data}>{children}</ConfigContext.Provider>;
}

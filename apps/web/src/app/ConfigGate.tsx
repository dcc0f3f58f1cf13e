import type { ReactNode } from 'react';
import { ConfigContext, useConfigQuery } from '../api/config';
import { ErrorScreen } from './ErrorScreen';

/** The config is loaded first: every URL and configurable constant comes from it. */
export function ConfigGate({ children }: { children: ReactNode }) {
  const query = useConfigQuery();
  if (query.isPending)
    return (
      <div className="app-loading" role="status" aria-live="polite">
        <span className="spinner" aria-hidden="true" />
        Loading…
      </div>
    );
  if (query.isError) return <ErrorScreen onTryAgain={() => void query.refetch()} />;
  return <ConfigContext.Provider value={query.data}>{children}</ConfigContext.Provider>;
}

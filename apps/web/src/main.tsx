import { lazy, StrictMode, Suspense } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './app/App';
import { seedFirstQueries } from './app/first-queries';
import { createQueryClient } from './app/query-client';
import { loadInterAfterPageLoad } from './styles/inter';

// The answers the page carries are in the cache before the first render (first-queries.ts).
const queryClient = createQueryClient();
seedFirstQueries(queryClient);

// /exit needs nothing of ours (no config, no API): it renders alone, so it works with the server down.
const ExitPage = lazy(async () => ({ default: (await import('./exit/ExitPage')).ExitPage }));

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    {window.location.pathname.replace(/\/+$/, '') === '/exit' ? (
      <Suspense fallback={null}>
        <ExitPage />
      </Suspense>
    ) : (
      <App queryClient={queryClient} />
    )}
  </StrictMode>,
);

loadInterAfterPageLoad();

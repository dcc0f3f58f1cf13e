import { lazy, StrictMode, Suspense } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './app/App';
import { seedFirstQueries } from './app/first-queries';
import { afterPrerenderedShell, removePrerenderedShell } from './app/prerendered-shell';
import { createQueryClient } from './app/query-client';
import { loadInterAfterPageLoad } from './styles/inter';

// The answers the page carries are in the cache before the first render (first-queries.ts).
const queryClient = createQueryClient();
seedFirstQueries(queryClient);

// /exit needs nothing of ours (no config, no API): it renders alone, so it works with the server down.
// The welcome page's prerendered shell (index.html) is not its page: it goes at once.
const ExitPage = lazy(async () => ({ default: (await import('./exit/ExitPage')).ExitPage }));
const isExit = window.location.pathname.replace(/\/+$/, '') === '/exit';
if (isExit) removePrerenderedShell();

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    {isExit ? (
      <Suspense fallback={null}>
        <ExitPage />
      </Suspense>
    ) : (
      <App queryClient={queryClient} />
    )}
  </StrictMode>,
);

loadInterAfterPageLoad(afterPrerenderedShell);

import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './app/App';
import { seedFirstQueries } from './app/first-queries';
import { createQueryClient } from './app/query-client';
import { loadInterAfterPageLoad } from './styles/inter';

// The answers the page carries are in the cache before the first render (first-queries.ts).
const queryClient = createQueryClient();
seedFirstQueries(queryClient);

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <App queryClient={queryClient} />
  </StrictMode>,
);

loadInterAfterPageLoad();

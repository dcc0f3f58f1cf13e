import { render } from '@testing-library/react';
import { createMemoryRouter, RouterProvider, type RouteObject } from 'react-router';
import { AppProviders } from '../src/app/App';
import { createQueryClient } from '../src/app/query-client';
import { routes } from '../src/app/routes';
import type { ExecuteFlow } from '../src/flows/flow-types';

/** Renders the whole app (providers, router, drawer) at a URL, like main.tsx does in a browser. */
export function renderApp(url = '/', opts: { execute?: ExecuteFlow; routes?: RouteObject[] } = {}) {
  const router = createMemoryRouter(opts.routes ?? routes, { initialEntries: [url] });
  const queryClient = createQueryClient();
  queryClient.setDefaultOptions({
    queries: { ...queryClient.getDefaultOptions().queries, retry: false },
  });
  const utils = render(
    <AppProviders queryClient={queryClient} execute={opts.execute}>
      <RouterProvider router={router} />
    </AppProviders>,
  );
  return { ...utils, router, queryClient };
}

import { lazy, Suspense } from 'react';
import type { RouteObject } from 'react-router';
import { useFlows } from '../flows/FlowProvider';
import { Layout } from '../layout/Layout';
import { VaultPage } from '../vault/VaultPage';
import { CrashDrill } from '../ui/CrashDrill';
import { NotFoundPage } from './NotFound';
import { RouteErrorScreen } from './ErrorScreen';

// Budget (scripts/bundle-size.mjs): the drawer and the secondary pages load when first needed.
const FlowDrawer = lazy(async () => ({
  default: (await import('../flows/FlowDrawer')).FlowDrawer,
}));

function Root() {
  const { flow } = useFlows();
  return (
    <>
      <Layout />
      {flow && (
        <Suspense fallback={null}>
          <FlowDrawer />
        </Suspense>
      )}
    </>
  );
}

/** A lazy page's first load (react-router warns on the console without one). */
function PageLoading() {
  return (
    <div className="page-loading" role="status">
      <span className="spinner" aria-hidden="true" />
      <span className="sr-only">Loading…</span>
    </div>
  );
}

/** SPEC §2 Routes. The error screen replaces the page on any render error. */
export const routes: RouteObject[] = [
  {
    element: <Root />,
    errorElement: <RouteErrorScreen />,
    children: [
      {
        errorElement: <RouteErrorScreen />,
        children: [
          {
            path: '/',
            element: (
              <>
                <CrashDrill />
                <VaultPage />
              </>
            ),
          },
          {
            path: '/liquidations',
            hydrateFallbackElement: <PageLoading />,
            lazy: async () => ({
              Component: (await import('../liquidations/LiquidationsPage')).LiquidationsPage,
            }),
          },
          {
            path: '/missions',
            hydrateFallbackElement: <PageLoading />,
            lazy: async () => ({
              Component: (await import('../missions/MissionsPage')).MissionsPage,
            }),
          },
          {
            path: '/network',
            hydrateFallbackElement: <PageLoading />,
            lazy: async () => ({
              Component: (await import('../network/NetworkPage')).NetworkPage,
            }),
          },
          { path: '*', element: <NotFoundPage /> },
        ],
      },
    ],
  },
];

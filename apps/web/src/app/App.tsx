import { useState, type ReactNode } from 'react';
import { QueryClientProvider, type QueryClient } from '@tanstack/react-query';
import { RouterProvider, createBrowserRouter, type DataRouter } from 'react-router';
import { useConfig } from '../api/config';
import { FlowProvider } from '../flows/FlowProvider';
import type { ExecuteFlow } from '../flows/flow-types';
import { ToastProvider } from '../ui/toasts';
import { WalletProvider } from '../wallet';
import { ConfigGate } from './ConfigGate';
import { AppErrorBoundary } from './ErrorScreen';
import { LiveUpdates } from './LiveUpdates';
import { createQueryClient } from './query-client';
import { routes } from './routes';
import '../styles/tokens.css';
import '../styles/ui.css';
import '../styles/notices.css';

function WalletAndFlows({ children, execute }: { children: ReactNode; execute?: ExecuteFlow }) {
  const config = useConfig();
  return (
    <WalletProvider config={config}>
      <FlowProvider execute={execute}>{children}</FlowProvider>
    </WalletProvider>
  );
}

/** Providers in the order they depend on each other: query client, live updates, config, wallet, flows. */
export function AppProviders(props: {
  children: ReactNode;
  queryClient: QueryClient;
  execute?: ExecuteFlow;
}) {
  return (
    <AppErrorBoundary>
      <QueryClientProvider client={props.queryClient}>
        <LiveUpdates>
          <ToastProvider>
            <ConfigGate>
              <WalletAndFlows execute={props.execute}>{props.children}</WalletAndFlows>
            </ConfigGate>
          </ToastProvider>
        </LiveUpdates>
      </QueryClientProvider>
    </AppErrorBoundary>
  );
}

export function App({ router, queryClient }: { router?: DataRouter; queryClient?: QueryClient }) {
  const [client] = useState(() => queryClient ?? createQueryClient());
  const [appRouter] = useState(() => router ?? createBrowserRouter(routes));
  return (
    <AppProviders queryClient={client}>
      <RouterProvider router={appRouter} />
    </AppProviders>
  );
}

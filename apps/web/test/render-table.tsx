import { render } from '@testing-library/react';
import { QueryClientProvider } from '@tanstack/react-query';
import { http } from 'msw';
import type { PriceInput, VaultHistoryRecordDto } from '@unit/protocol';
import { ConfigContext } from '../src/api/config';
import { createQueryClient } from '../src/app/query-client';
import { TransactionsTable } from '../src/transactions/TransactionsTable';
import { config, vault } from './fixtures';
import { historyPages, server } from './server';

/**
 * The transactions table alone, reading the history from the network edge in pages as it does in
 * the app. Returns the query client (to invalidate as a block would) and the history URLs asked.
 */
export function renderTable(
  records: VaultHistoryRecordDto[] | (() => VaultHistoryRecordDto[]),
  priceUsd?: PriceInput,
) {
  const requests: URL[] = [];
  const pages = historyPages(records);
  server.use(
    http.get('*/api/vaults/:id/history', (info) => {
      requests.push(new URL(info.request.url));
      return pages(info);
    }),
  );
  const queryClient = createQueryClient();
  queryClient.setDefaultOptions({
    queries: { ...queryClient.getDefaultOptions().queries, retry: false },
  });
  const utils = render(
    <QueryClientProvider client={queryClient}>
      <ConfigContext.Provider value={config}>
        <TransactionsTable vaultId={vault.vault_id} priceUsd={priceUsd} />
      </ConfigContext.Provider>
    </QueryClientProvider>,
  );
  return { ...utils, queryClient, requests };
}

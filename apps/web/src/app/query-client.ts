import { QueryClient } from '@tanstack/react-query';

// SPEC §7 policies that differ per endpoint live beside each endpoint (src/api/*). The defaults
// here: one quiet retry, no refetch storm when the tab regains focus (the price refetches itself).
export function createQueryClient(): QueryClient {
  return new QueryClient({
    defaultOptions: {
      queries: { retry: 1, refetchOnWindowFocus: false, staleTime: 10_000 },
      mutations: { retry: 0 },
    },
  });
}

import { useEffect, type ReactNode } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import type { VaultDto } from '@unit/protocol';
import { connectLive } from '../api/live';

/**
 * Keeps the page on the server's live state (api/live.ts) for as long as the app is mounted. Also
 * the one rule that keeps a liquidation consistent while the stream is down: a vault read that
 * turns liquidated re-reads the price at once, so the gauge never says Healthy beside the badge.
 */
export function LiveUpdates({ children }: { children: ReactNode }) {
  const client = useQueryClient();
  useEffect(() => connectLive(client), [client]);
  useEffect(() => {
    const seen = new Set<string>();
    return client.getQueryCache().subscribe((event) => {
      if (event.type !== 'updated' || event.action.type !== 'success') return;
      if (event.query.queryKey[0] !== 'vault') return;
      const vault = event.query.state.data as VaultDto | null | undefined;
      if (vault?.status !== 'liquidated' || seen.has(vault.vault_id)) return;
      seen.add(vault.vault_id);
      void client.invalidateQueries({ queryKey: ['bitcoin-price'] });
    });
  }, [client]);
  return children;
}

// The page's first data (api/first-data.ts) put in the query cache before the first render, so
// that render already has the config and the price, and the render that knows the wallet already
// has its vault: no pass through a loading state for answers the page carries. Each URL is the one
// its query asks (src/api/*); one that differs is simply asked of the server.
import type { QueryClient } from '@tanstack/react-query';
import type {
  BitcoinPriceDto,
  ConfigDto,
  HistoryPointDto,
  PriceHistoryDto,
  VaultDto,
  VaultHistoryPageDto,
} from '@unit/protocol';
import { bitcoinPriceQueryOptions } from '../api/bitcoin-price';
import { configQueryOptions } from '../api/config';
import { takeFirstAnswer } from '../api/first-data';
import { priceHistoryQueryOptions } from '../api/price-history';
import { vaultQueryOptions } from '../api/vault';
import { HISTORY_PAGE_LIMIT, vaultHistoryQueryOptions } from '../api/vault-history';
import { vaultPointsQueryOptions } from '../api/vault-points';
import { rememberedVaultKey } from '../wallet/vault-key-cookie';

const answer = <T>(url: string): T | undefined => takeFirstAnswer(url)?.body as T | undefined;

export function seedFirstQueries(client: QueryClient): void {
  const set = <T>(key: readonly unknown[], data: T | undefined) => {
    if (data !== undefined) client.setQueryData(key, data);
  };
  set(configQueryOptions.queryKey, answer<ConfigDto>('/api/config'));
  set(bitcoinPriceQueryOptions.queryKey, answer<BitcoinPriceDto>('/api/bitcoin-price'));
  const day = answer<PriceHistoryDto>('/api/price-history?timePeriod=24h');
  // an answer carrying an error is the query's error (getPriceHistory): left to the query
  if (day && !day.error) set(priceHistoryQueryOptions('24h').queryKey, day);

  const pubkey = rememberedVaultKey();
  if (!pubkey) return;
  const vaults = answer<VaultDto[]>(`/api/vaults?pubkey=${pubkey}`);
  if (!Array.isArray(vaults)) return;
  const vault = vaults[0] ?? null;
  set(vaultQueryOptions(pubkey).queryKey, vault);
  if (!vault) return;
  const id = encodeURIComponent(vault.vault_id);
  set(
    vaultHistoryQueryOptions(vault.vault_id).queryKey,
    answer<VaultHistoryPageDto>(`/api/vaults/${id}/history?limit=${HISTORY_PAGE_LIMIT}`),
  );
  set(
    vaultPointsQueryOptions(vault.vault_id, '24h').queryKey,
    answer<HistoryPointDto[]>(`/api/vaults/${id}/points?timePeriod=24h`),
  );
}

// The page's first data (api/first-data.ts) put in the query cache before the first render, so
// that render already has the config and the price, and the render that knows the wallet already
// has its vault: no pass through a loading state for answers the page carries. Each URL is the one
// its query asks (src/api/*); one that differs is simply asked of the server.
import type { QueryClient } from '@tanstack/react-query';
import type { RouteName, RouteResponse } from '@unit/protocol/wire';
import { bitcoinPriceQueryOptions } from '../api/bitcoin-price';
import { routeUrl, type CallParts } from '../api/call';
import { configQueryOptions } from '../api/config';
import { takeFirstAnswer } from '../api/first-data';
import { priceHistoryQueryOptions } from '../api/price-history';
import { vaultQueryOptions } from '../api/vault';
import { HISTORY_PAGE_LIMIT, vaultHistoryQueryOptions } from '../api/vault-history';
import { vaultPointsQueryOptions } from '../api/vault-points';
import { rememberedVaultKey } from '../wallet/vault-key-cookie';

/** The page's answer of a route of the table, asked as its query asks it (src/api/*). */
const answer = <K extends RouteName>(name: K, parts: CallParts<K>) =>
  takeFirstAnswer(routeUrl(name, parts))?.body as RouteResponse<K> | undefined;

export function seedFirstQueries(client: QueryClient): void {
  const set = <T>(key: readonly unknown[], data: T | undefined) => {
    if (data !== undefined) client.setQueryData(key, data);
  };
  set(configQueryOptions.queryKey, answer('config', {}));
  set(bitcoinPriceQueryOptions.queryKey, answer('bitcoinPrice', {}));
  const day = answer('priceHistory', { query: { timePeriod: '24h' } });
  // an answer carrying an error is the query's error (getPriceHistory): left to the query
  if (day && !day.error) set(priceHistoryQueryOptions('24h').queryKey, day);

  const pubkey = rememberedVaultKey();
  if (!pubkey) return;
  const vaults = answer('vaults', { query: { pubkey } });
  if (!Array.isArray(vaults)) return;
  const vault = vaults[0] ?? null;
  set(vaultQueryOptions(pubkey).queryKey, vault);
  if (!vault) return;
  const params = { vaultId: vault.vault_id };
  set(
    vaultHistoryQueryOptions(vault.vault_id).queryKey,
    answer('vaultHistory', { params, query: { limit: HISTORY_PAGE_LIMIT } }),
  );
  set(
    vaultPointsQueryOptions(vault.vault_id, '24h').queryKey,
    answer('vaultPoints', { params, query: { timePeriod: '24h' } }),
  );
}

// Where each route of the public HTTP API lives: its method and path (`:name` marks a path
// parameter). Kept apart from the schemas (routes.ts) and free of zod, so the web app's first
// chunk can call through the route table without carrying the validator.
export const ROUTE_PATHS = {
  health: { method: 'GET', path: '/api/health' },
  config: { method: 'GET', path: '/api/config' },
  network: { method: 'GET', path: '/api/network' },
  bitcoinPrice: { method: 'GET', path: '/api/bitcoin-price' },
  priceHistory: { method: 'GET', path: '/api/price-history' },
  oracleQuote: { method: 'GET', path: '/api/oracle/quote' },
  vaults: { method: 'GET', path: '/api/vaults' },
  vaultByPubkey: { method: 'GET', path: '/api/vaults/by-pubkey/:pubkey' },
  vaultHistory: { method: 'GET', path: '/api/vaults/:vaultId/history' },
  vaultPoints: { method: 'GET', path: '/api/vaults/:vaultId/points' },
  liquidations: { method: 'GET', path: '/api/liquidations' },
  operationQuote: { method: 'GET', path: '/api/quote' },
  notify: { method: 'POST', path: '/api/notify' },
  thresholdHash: { method: 'GET', path: '/api/oracle/threshold-hash' },
  priceQuorum: { method: 'GET', path: '/api/price-quorum/:commitment' },
  vaultLiquidation: { method: 'GET', path: '/api/vaults/:vaultId/liquidation' },
  transactionFate: { method: 'GET', path: '/api/transactions/:txid' },
  closedVaults: { method: 'GET', path: '/api/vaults/by-pubkey/:pubkey/closed' },
  historyCsv: { method: 'GET', path: '/api/vaults/:vaultId/history.csv' },
  ledger: { method: 'GET', path: '/api/ledger/:height' },
  events: { method: 'GET', path: '/api/events' },
  indexerOutputs: { method: 'GET', path: '/api/indexer/address/:address/outputs' },
  indexerUtxos: { method: 'GET', path: '/api/indexer/address/:address/utxos' },
  authChallenge: { method: 'POST', path: '/api/auth/challenge' },
  authVerify: { method: 'POST', path: '/api/auth/verify' },
  authSession: { method: 'GET', path: '/api/auth/session' },
  authLogout: { method: 'POST', path: '/api/auth/logout' },
  oauthProviders: { method: 'GET', path: '/api/oauth/providers' },
  oauthStart: { method: 'POST', path: '/api/oauth/:provider/start' },
  oauthCallback: { method: 'GET', path: '/api/oauth/:provider/callback' },
  missions: { method: 'GET', path: '/api/missions' },
  missionVerify: { method: 'POST', path: '/api/missions/:id/verify' },
  users: { method: 'GET', path: '/api/users' },
  user: { method: 'GET', path: '/api/users/:address' },
  userCommunity: { method: 'GET', path: '/api/users/:address/community' },
  registerUser: { method: 'POST', path: '/api/users' },
  telegramLink: { method: 'POST', path: '/api/telegram/link' },
  clientErrors: { method: 'POST', path: '/api/client-errors' },
  openApi: { method: 'GET', path: '/api/openapi.json' },
  devnetMarket: { method: 'GET', path: '/api/devnet/market' },
  devnetPrice: { method: 'POST', path: '/api/devnet/price' },
  devnetPriceFeed: { method: 'POST', path: '/api/devnet/price-feed' },
  devnetFaucet: { method: 'POST', path: '/api/devnet/faucet' },
  devnetChain: { method: 'POST', path: '/api/devnet/chain' },
  devnetMine: { method: 'POST', path: '/api/devnet/mine' },
  healthz: { method: 'GET', path: '/healthz' },
  readyz: { method: 'GET', path: '/readyz' },
  metrics: { method: 'GET', path: '/metrics' },
} as const;

export type RouteName = keyof typeof ROUTE_PATHS;

/** A route's path with its parameters filled in, each URI-encoded. */
export function fillPath(path: string, params: Record<string, string | number> = {}): string {
  return path.replace(/:([A-Za-z]+)/g, (_, name: string) => {
    const value = params[name];
    if (value === undefined) throw new Error(`The path ${path} needs the parameter ${name}.`);
    return encodeURIComponent(String(value));
  });
}

/** A query string (with its `?`) of the defined values, in the order given; '' when none. */
export function queryString(query: Record<string, unknown> = {}): string {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value !== undefined && value !== null) search.set(key, String(value));
  }
  const text = search.toString();
  return text ? `?${text}` : '';
}

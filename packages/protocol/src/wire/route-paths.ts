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

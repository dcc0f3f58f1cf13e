import { http, HttpResponse } from 'msw';
import { setupServer } from 'msw/node';
import { config, history, price, priceHistory, vault } from './fixtures';
import type { VaultDto, VaultHistoryPageDto, VaultHistoryRecordDto } from '@unit/protocol';

// The network edge of the web app: every HTTP endpoint it calls, answered from fixtures.
export interface Scenario {
  vault: VaultDto | null;
  walletSats: number;
  unitCents: number;
  tipHeight: number;
  /** sats paid to the wallet by transactions still in the mempool */
  incomingSats: number;
}

const defaultScenario = (): Scenario => ({
  vault,
  walletSats: 50_000_000,
  unitCents: 1_000_000,
  tipHeight: 100,
  incomingSats: 0,
});

export const scenario: Scenario = defaultScenario();

/** Back to the fixtures' vault, wallet and chain (each test starts here). */
export const resetScenario = () => Object.assign(scenario, defaultScenario());

const STEPS = {
  '24h': [288, 300],
  '7d': [168, 3600],
  '30d': [120, 21_600],
  '1y': [365, 86_400],
} as const;

/**
 * Answers GET /api/vaults/:id/history as the server does: newest first, `limit` records a page,
 * `next` naming the page's last record (stable when newer records arrive), the state before it.
 * `records` may change between calls (a function), as a chain adds records.
 */
export function historyPages(records: VaultHistoryRecordDto[] | (() => VaultHistoryRecordDto[])) {
  return ({ request }: { request: Request }) => {
    const url = new URL(request.url);
    const limit = Number(url.searchParams.get('limit') ?? 20);
    const before = url.searchParams.get('before');
    const all = (typeof records === 'function' ? records() : records)
      .map((r, i) => ({ r, i }))
      .sort((a, b) => b.r.timestamp - a.r.timestamp || b.i - a.i)
      .map(({ r }) => r);
    const start = before ? all.findIndex((r) => r.transaction_id === before) + 1 : 0;
    const page = all.slice(start, start + limit);
    const older = all[start + page.length];
    const body: VaultHistoryPageDto = {
      records: page,
      next: older ? page.at(-1)!.transaction_id : null,
      state_before: older
        ? { vault_amount: older.vault_amount, amount_borrowed: older.amount_borrowed }
        : null,
    };
    return HttpResponse.json(body);
  };
}

export const server = setupServer(
  http.get('*/api/config', () => HttpResponse.json(config)),
  // Not signed in unless a test says otherwise (sign-in with Bitcoin).
  // The server answers 200 with null when signed out (no console noise).
  http.get('*/api/auth/session', () => HttpResponse.json(null)),
  // An address that has not registered, unless a test says otherwise (referral levels).
  http.get('*/api/users', () => HttpResponse.json([])),
  // A 2-of-3 guardian network (the welcome page says who co-signs); /network's tests answer more.
  http.get('*/api/network', () =>
    HttpResponse.json({
      enabled: true,
      scheme: 'FROST (RFC 9591, secp256k1, BIP-340)',
      threshold: 2,
      size: 3,
      set_version: 1,
      group_key: 'a'.repeat(64),
      guardians: [],
      older_sets: [],
      recent_exclusions: [],
      history: [],
      checked_at: Math.floor(Date.now() / 1000),
    }),
  ),
  http.get('*/api/bitcoin-price', () => HttpResponse.json(price)),
  http.get('*/api/price-history', ({ request }) => {
    const period = (new URL(request.url).searchParams.get('timePeriod') ??
      '24h') as keyof typeof STEPS;
    const [n, step] = STEPS[period];
    return HttpResponse.json(priceHistory(n, step));
  }),
  http.get('*/api/vaults/by-pubkey/:pubkey', () =>
    scenario.vault
      ? HttpResponse.json(scenario.vault)
      : HttpResponse.json({ error: 'No vault', code: 'not_found' }, { status: 404 }),
  ),
  http.get('*/api/vaults', () => HttpResponse.json(scenario.vault ? [scenario.vault] : [])),
  http.get('*/api/vaults/:id/history', historyPages(history)),
  http.get('*/api/vaults/by-pubkey/:pubkey/closed', () => HttpResponse.json([])),
  http.get('*/api/vaults/:id/points', () =>
    HttpResponse.json([
      { timestamp: 0, btc_locked: vault.btc_locked, unit_borrowed: vault.unit_borrowed, vaults: 1 },
    ]),
  ),
  http.get('*/api/liquidations', () => HttpResponse.json([])),
  http.get('*/api/vaults/:id/liquidation', () =>
    HttpResponse.json({ error: 'Not liquidated', code: 'not_found' }, { status: 404 }),
  ),
  // A co-signed transaction waits for its block unless a test says it failed.
  http.get('*/api/transactions/:txid', ({ params }) =>
    HttpResponse.json({ txid: params.txid, status: 'pending', cause: null, reason: null }),
  ),
  http.get('*/esplora/blocks/tip/height', () => HttpResponse.json(scenario.tipHeight)),
  http.get('*/esplora/address/:address', ({ params }) =>
    HttpResponse.json({
      address: params.address,
      chain_stats: {
        funded_txo_count: 1,
        funded_txo_sum: scenario.walletSats,
        spent_txo_count: 0,
        spent_txo_sum: 0,
        tx_count: 1,
      },
      mempool_stats: {
        funded_txo_count: scenario.incomingSats > 0 ? 1 : 0,
        funded_txo_sum: scenario.incomingSats,
        spent_txo_count: 0,
        spent_txo_sum: 0,
        tx_count: 0,
      },
    }),
  ),
  http.get('*/runes/address/:address/outputs', () =>
    HttpResponse.json([
      {
        txid: 'a'.repeat(64),
        vout: 1,
        script_hex: '51',
        btc_amount: 10_000,
        unit_amount: scenario.unitCents,
        spent: false,
      },
    ]),
  ),
  http.get('*/mempool/devnet/api/v1/fees/recommended', () =>
    HttpResponse.json({ fastestFee: 5, halfHourFee: 3, hourFee: 2, economyFee: 1, minimumFee: 1 }),
  ),
);

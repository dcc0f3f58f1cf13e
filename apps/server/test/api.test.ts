// The real app on a loopback port with a temporary SQLite file, driven over HTTP.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type {
  ApiErrorDto,
  BitcoinPriceDto,
  ConfigDto,
  OperationQuoteDto,
  OracleQuoteDto,
  PriceHistoryDto,
  VaultDto,
  VaultHistoryPageDto,
} from '@unit/protocol';
import { operationCostSats } from '@unit/protocol';
import { appendVaultHistory, insertVault } from '../src/store';
import { createOracleKeyFile } from '../src/oracle/keys';
import { getJson, postJson, startTestApp, type RunningApp } from './support';
import { historyEntry, savingsVault } from './rows';

let server: RunningApp;

beforeAll(async () => {
  server = await startTestApp({}, { writeLimitPerMinute: 5 });
});
afterAll(async () => {
  await server.stop();
});

describe('prices and the oracle over HTTP', () => {
  it('answers the config with devnet service URLs and the guardian keys', async () => {
    const { status, body } = await getJson(`${server.url}/api/config`);
    const config = body as ConfigDto;
    expect(status).toBe(200);
    expect(config.network).toBe('devnet');
    expect(config.esploraUrl).toBe('/esplora');
    expect(config.guardPubkey).toBe(server.keys.guardPubkey);
    expect(config.guardPubkey).toMatch(/^[0-9a-f]{64}$/);
    expect(config.constants.liquidationThresholdPercent).toBe(135);
  });

  it('answers the current bitcoin price as USD and time', async () => {
    const { body } = await getJson(`${server.url}/api/bitcoin-price`);
    const price = body as BitcoinPriceDto;
    expect(price.USD).toBe(server.oracle.price().priceCents / 100);
    // The simulated devnet price is never stale.
    expect(price.stale).toBe(false);
    expect(Number.isInteger(price.time)).toBe(true);
  });

  it('answers 288 five-minute points for 24h and refuses an unknown period with 400', async () => {
    const day = (await getJson(`${server.url}/api/price-history?timePeriod=24h`))
      .body as PriceHistoryDto;
    expect(day.data).toHaveLength(288);
    const bad = await getJson(`${server.url}/api/price-history?timePeriod=2w`);
    expect(bad.status).toBe(400);
    expect((bad.body as ApiErrorDto).code).toBe('bad_request');
  });

  it('sets the devnet price and reveals a threshold secret once the price reaches it', async () => {
    const set = await postJson(`${server.url}/api/devnet/price`, { usd: 60_000 });
    expect(set.status).toBe(200);
    expect((set.body as BitcoinPriceDto).USD).toBe(60_000);
    const ts = Math.floor(Date.now() / 1000);
    const hidden = (await getJson(`${server.url}/api/oracle/quote?th=5999999&ts=${ts}`))
      .body as OracleQuoteDto;
    expect(hidden.secret).toBeNull();
    expect(hidden.price_cents).toBe(6_000_000);
    const shown = (await getJson(`${server.url}/api/oracle/quote?th=6000000&ts=${ts}`))
      .body as OracleQuoteDto;
    expect(shown.secret).toMatch(/^[0-9a-f]{64}$/);
    expect(shown.is_expired).toBe(false);
  });

  it('refuses a quote without a numeric threshold', async () => {
    const res = await getJson(`${server.url}/api/oracle/quote?th=abc&ts=1`);
    expect(res.status).toBe(400);
  });
});

describe('vaults over HTTP', () => {
  const pubkey = 'ab'.repeat(32);
  const vaultId = 'cd'.repeat(32);

  beforeAll(async () => {
    await insertVault(server.store.db, savingsVault({ vault_id: vaultId, vault_pubkey: pubkey }));
    await appendVaultHistory(
      server.store.db,
      historyEntry({ vault_id: vaultId, transaction_id: vaultId }),
    );
  });

  it('finds a vault by pubkey with the guardian key filled in', async () => {
    const { status, body } = await getJson(`${server.url}/api/vaults/by-pubkey/${pubkey}`);
    expect(status).toBe(200);
    const vault = body as VaultDto;
    expect(vault.vault_id).toBe(vaultId);
    expect(vault.btc_locked).toBe(50_000_000);
    expect(vault.guard_pubkey).toBe(server.keys.guardPubkey);
  });

  it('answers 404 not_found for an unknown pubkey', async () => {
    const { status, body } = await getJson(`${server.url}/api/vaults/by-pubkey/${'00'.repeat(32)}`);
    expect(status).toBe(404);
    expect(body).toEqual({ error: 'No vault for this public key', code: 'not_found' });
  });

  it('lists the vault of a pubkey, or none as an empty list rather than a 404', async () => {
    const found = await getJson(`${server.url}/api/vaults?pubkey=${pubkey}`);
    expect(found.status).toBe(200);
    expect((found.body as VaultDto[]).map((v) => v.vault_id)).toEqual([vaultId]);
    const none = await getJson(`${server.url}/api/vaults?pubkey=${'00'.repeat(32)}`);
    expect(none).toEqual({ status: 200, body: [] });
    expect((await getJson(`${server.url}/api/vaults?pubkey=zz`)).status).toBe(400);
  });

  it('answers the history records and chart points of a vault', async () => {
    const history = await getJson(`${server.url}/api/vaults/${vaultId}/history`);
    expect(history.body).toMatchObject({
      records: [{ action: 'o', confirmed: true, vault_amount: 50_000_000 }],
      next: null,
      state_before: null,
    });
    const points = await getJson(`${server.url}/api/vaults/${vaultId}/points`);
    expect(points.body).toEqual([
      { timestamp: 1_700_000_000, btc_locked: 50_000_000, unit_borrowed: 1_000_000, vaults: 1 },
    ]);
    expect((await getJson(`${server.url}/api/vaults/nope/history`)).status).toBe(404);
  });

  it('pages a long history by cursor over HTTP, and refuses hostile limits and cursors', async () => {
    const longId = 'ef'.repeat(32);
    await insertVault(server.store.db, {
      vault_id: longId,
      vault_tag: 'tag',
      vault_pubkey: 'ef'.repeat(32),
      name: 'Busy',
      creation_account: 'tb1qbusy',
      runes_account: 'tb1pbusy',
      btc_locked: 0,
      unit_borrowed: 0,
      vault_txid: longId,
      vault_vout: 0,
      threshold_cents: 0,
      stamp: 0,
      status: 'active',
      created_at: 0,
    });
    for (let i = 0; i < 12; i++) {
      await appendVaultHistory(server.store.db, {
        vault_id: longId,
        timestamp: 1_700_000_000 + Math.floor(i / 2),
        action: i === 0 ? 'o' : 'd',
        btc_amt: 1000,
        unit_amt: 0,
        vault_amount: 1000 * (i + 1),
        amount_borrowed: 0,
        oracle_price: 9_500_000,
        transaction_id: i.toString(16).padStart(64, '0'),
        utxo: `${longId}:0`,
        utxo_script: '51',
        liquidation_hash: null,
        liquidation_threshold: null,
        confirmed: 1,
      });
    }
    const amounts: number[] = [];
    let url = `${server.url}/api/vaults/${longId}/history?limit=5`;
    const bodies: VaultHistoryPageDto[] = [];
    for (let pages = 0; pages < 5; pages++) {
      const { status, body } = await getJson(url);
      expect(status).toBe(200);
      const page = body as VaultHistoryPageDto;
      bodies.push(page);
      amounts.push(...page.records.map((r) => r.vault_amount));
      if (!page.next) break;
      url = `${server.url}/api/vaults/${longId}/history?limit=5&before=${page.next}`;
    }
    expect(amounts).toEqual(Array.from({ length: 12 }, (_, i) => 12_000 - 1000 * i));
    expect(bodies.map((b) => b.state_before)).toEqual([
      { vault_amount: 7000, amount_borrowed: 0 },
      { vault_amount: 2000, amount_borrowed: 0 },
      null,
    ]);
    // Without a limit the page is bounded all the same.
    const first = (await getJson(`${server.url}/api/vaults/${longId}/history`))
      .body as VaultHistoryPageDto;
    expect(first.records).toHaveLength(12);
    for (const query of [
      'limit=0',
      'limit=101',
      'limit=-5',
      'limit=2.5',
      'limit=abc',
      'limit=1e9',
      'before=abc',
      'before=1.2.3',
      'before=-1.5',
      'before=1700000000',
      `before=${'9'.repeat(40)}.1`,
      "before=1'%20or%201=1",
    ]) {
      const res = await getJson(`${server.url}/api/vaults/${longId}/history?${query}`);
      expect({ query, status: res.status }).toEqual({ query, status: 400 });
      expect((res.body as ApiErrorDto).code).toBe('bad_request');
    }
  });

  it('answers chart points per period and refuses an unknown one', async () => {
    for (const period of ['24h', '7d', '30d', '1y']) {
      const res = await getJson(`${server.url}/api/vaults/${vaultId}/points?timePeriod=${period}`);
      // The one record predates every period: it is the state the whole period starts from.
      expect(res.body).toEqual([
        { timestamp: 1_700_000_000, btc_locked: 50_000_000, unit_borrowed: 1_000_000, vaults: 1 },
      ]);
    }
    const bad = await getJson(`${server.url}/api/vaults/${vaultId}/points?timePeriod=5y`);
    expect(bad.status).toBe(400);
  });

  it('lists no liquidations on a fresh devnet', async () => {
    expect((await getJson(`${server.url}/api/liquidations`)).body).toEqual([]);
  });
});

describe('operation quotes, notify, missions and the rest of the surface', () => {
  it('prices an operation with the protocol package cost rule', async () => {
    const { body } = await getJson(`${server.url}/api/quote?action=borrow&feeRate=3`);
    const quote = body as OperationQuoteDto;
    expect(quote.operation_cost_sats).toBe(
      // Layout 2: the record carries the term, and the vault spent is counted as layout 2.
      Number(
        operationCostSats({
          action: 'borrow',
          paymentInputs: 1,
          feeRate: 3,
          term: true,
          spentTermed: true,
        }),
      ),
    );
    expect((await getJson(`${server.url}/api/quote?action=steal&feeRate=3`)).status).toBe(400);
  });

  it('validates a notification, and refuses it without a session', async () => {
    const dto = {
      network: 'devnet',
      address: 'tb1qowner000000000000000000000000000000',
      tx_id: 'ab'.repeat(32),
      tx_action: 'deposit',
      btc_amount: 10_000,
      unit_amount: 0,
      vault_id: 'cd'.repeat(32),
    };
    // Only the owner's session may announce (test/notify.test.ts signs in).
    const anonymous = await postJson(`${server.url}/api/notify`, dto);
    expect(anonymous.status).toBe(401);
    const bad = await postJson(`${server.url}/api/notify`, { ...dto, tx_id: 'x' });
    expect(bad.status).toBe(400);
  });

  it('answers a JSON 404 under /api and a clear 503 page when the web app is not built', async () => {
    const api = await getJson(`${server.url}/api/nothing-here`);
    expect(api).toEqual({
      status: 404,
      body: { error: 'No route GET /api/nothing-here', code: 'not_found' },
    });
    const page = await fetch(`${server.url}/liquidations`);
    expect(page.status).toBe(503);
    expect(await page.text()).toContain('npm run build');
  });

  it('sends security headers with a CSP that allows WebSocket connections to self', async () => {
    const res = await fetch(`${server.url}/liquidations`);
    await res.arrayBuffer();
    const csp = res.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("script-src 'self'");
    expect(csp).toMatch(/connect-src 'self' ws:/);
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('x-frame-options')).toBe('SAMEORIGIN');
  });

  it("sends the API's answers the short set of security headers meant for data", async () => {
    const res = await fetch(`${server.url}/api/health`);
    await res.arrayBuffer();
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('cross-origin-resource-policy')).toBe('same-origin');
    expect(res.headers.get('content-security-policy')).toBe(
      "default-src 'none'; frame-ancestors 'none'",
    );
    expect(res.headers.get('x-frame-options')).toBeNull();
    expect(res.headers.get('referrer-policy')).toBeNull();
  });

  it('rate-limits writes with a rate_limited error', async () => {
    let last = { status: 0, body: {} as unknown };
    for (let i = 0; i < 8; i++) {
      last = await postJson(`${server.url}/api/users`, { address: 'tb1qratelimit0000000000000' });
    }
    expect(last.status).toBe(429);
    expect((last.body as ApiErrorDto).code).toBe('rate_limited');
  });
});

/** What a real network needs named (config.ts): services at `base`, the rune, the two keys. */
function signetIdentity(base: string): Record<string, string> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'unit-signet-keys-'));
  createOracleKeyFile(path.join(dir, 'oracle.key'));
  return {
    NETWORK: 'signet',
    PUBLIC_ORIGIN: 'https://app.example',
    ESPLORA_URL: `${base}/esplora`,
    MEMPOOL_URL: `${base}/mempool`,
    ORDINALS_URL: `${base}/ordinals`,
    RUNES_URL: `${base}/runes`,
    EXPLORER_URL: `${base}/explorer`,
    UNIT_RUNE_ID: '1:1',
    GUARDIAN_KEY: '11'.repeat(32),
    ORACLE_KEY_FILE: path.join(dir, 'oracle.key'),
  };
}

describe('POST /api/devnet/price off the devnet', () => {
  it('refuses with 403 not_devnet', async () => {
    // Feeds that refuse connections: this test is about the route, not the price.
    const signet = await startTestApp({
      ...signetIdentity('http://127.0.0.1:9'),
      PRICE_FEEDS: 'mempool@http://127.0.0.1:9,kraken@http://127.0.0.1:9',
    });
    try {
      const res = await postJson(`${signet.url}/api/devnet/price`, { usd: 1 });
      expect(res.status).toBe(403);
      expect((res.body as ApiErrorDto).code).toBe('not_devnet');
      // No feed has ever answered: no price at all, but the server is up.
      const price = await getJson(`${signet.url}/api/bitcoin-price`);
      expect(price.status).toBe(503);
      expect((price.body as ApiErrorDto).code).toBe('no_price');
      expect((await getJson(`${signet.url}/api/health`)).body).toMatchObject({
        status: 'ok',
        price_time: null,
        price_stale: true,
      });
    } finally {
      await signet.stop();
    }
  });
});

describe('the built web app', () => {
  it('serves assets and falls back to index.html for client routes', async () => {
    const dist = fs.mkdtempSync(path.join(os.tmpdir(), 'unit-dist-'));
    fs.mkdirSync(path.join(dist, 'assets'));
    fs.writeFileSync(path.join(dist, 'index.html'), '<!doctype html><div id="root"></div>');
    fs.writeFileSync(path.join(dist, 'assets', 'app.js'), 'console.log(1)');
    const web = await startTestApp({}, { webDistDir: dist });
    try {
      const route = await fetch(`${web.url}/liquidations`);
      expect(route.status).toBe(200);
      expect(await route.text()).toContain('<div id="root">');
      const asset = await fetch(`${web.url}/assets/app.js`);
      expect(asset.headers.get('content-type')).toContain('javascript');
      expect((await fetch(`${web.url}/api/missing`)).status).toBe(404);
      // A stale page asking for an old bundle gets a 404, not the SPA's HTML.
      expect((await fetch(`${web.url}/assets/index-old.js`)).status).toBe(404);
    } finally {
      await web.stop();
      fs.rmSync(dist, { recursive: true, force: true });
    }
  });
});

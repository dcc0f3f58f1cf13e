// Prometheus metrics and health probes on the real server: /metrics scraped
// behind its bearer token (refused without it) or on a port of its own, off when neither is set;
// /healthz always; /readyz ready on a working devnet and 503 once the live price goes stale.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GuardianMethod } from '@unit/protocol';
import { ConfigError, loadConfig } from '../src/config';
import { startTestApp, type RunningApp } from './support';
import { startFakeFeed, type FakeFeed } from './price-feeds';
import { callOnce, codeOf } from './guardian-client';

const TOKEN = 'metrics-token-0123456789abcdef';

/** One guardian JSON-RPC call over the real socket; resolves to the reply's error code or 'ok'. */
function guardianCall(url: string, method: string, params: unknown): Promise<string> {
  return codeOf(callOnce(url, method as GuardianMethod, params as never));
}

/** The value of the sample whose name and labels start with `prefix`, or null. */
function sample(text: string, prefix: string): number | null {
  const line = text.split('\n').find((l) => l.startsWith(prefix));
  return line ? Number(line.slice(line.lastIndexOf(' ') + 1)) : null;
}

/** No metrics there: the app answers 404, never the metrics nor the SPA's page. */
async function expectNoMetrics(answer: Promise<Response>): Promise<void> {
  const res = await answer;
  expect(res.status).toBe(404);
  expect(res.headers.get('content-type')).not.toMatch(/version=0\.0\.4/);
  expect(await res.text()).not.toContain('unit_http_request_duration_seconds');
}

const scrape = (url: string, token?: string) =>
  fetch(`${url}/metrics`, token ? { headers: { authorization: `Bearer ${token}` } } : {});

describe('GET /metrics behind METRICS_TOKEN', () => {
  let unit: RunningApp;
  beforeAll(async () => {
    unit = await startTestApp({ METRICS_TOKEN: TOKEN });
  });
  afterAll(() => unit?.stop());

  it('refuses a scrape without the token, or with another', async () => {
    const none = await scrape(unit.url);
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toMatch(/^Bearer/);
    expect(await none.text()).not.toContain('unit_');
    expect((await scrape(unit.url, TOKEN.slice(1))).status).toBe(401);
    expect((await scrape(unit.url, `${TOKEN}x`)).status).toBe(401);
    const basic = await fetch(`${unit.url}/metrics`, {
      headers: { authorization: `Basic ${Buffer.from(`x:${TOKEN}`).toString('base64')}` },
    });
    expect(basic.status).toBe(401);
  });

  it('serves every figure the operator needs, from the running server', async () => {
    await fetch(`${unit.url}/api/health`);
    await fetch(`${unit.url}/api/vaults/${'ab'.repeat(32)}/liquidation`);
    await fetch(`${unit.url}/api/no-such-route`);
    // A guardian call that succeeds and one the guardian refuses.
    const reserve = (vault_action: string, pubkey: string) =>
      guardianCall(unit.url, 'unit.reserve', {
        unit_amount: 10_000,
        vault_action,
        vault_pubkey: pubkey,
      });
    expect(await reserve('open', '1c'.repeat(32))).toBe('ok');
    const refused = await reserve('borrow', '2d'.repeat(32));
    expect(refused).not.toBe('ok');

    const res = await scrape(unit.url, TOKEN);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = await res.text();
    // Request latency by route template.
    expect(
      sample(
        text,
        'unit_http_request_duration_seconds_count{method="GET",route="/api/health",status_code="200"}',
      ),
    ).toBeGreaterThanOrEqual(1);
    // A route's template with its parameter unfilled, and what matched no route.
    expect(
      sample(
        text,
        'unit_http_request_duration_seconds_count{method="GET",route="/api/vaults/:vaultId/liquidation",status_code="404"}',
      ),
    ).toBe(1);
    expect(
      sample(
        text,
        'unit_http_request_duration_seconds_count{method="GET",route="unmatched",status_code="404"}',
      ),
    ).toBe(1);
    // Guardian requests by outcome.
    expect(sample(text, 'unit_guardian_requests_total{method="unit.reserve",outcome="ok"}')).toBe(
      1,
    );
    expect(
      sample(text, `unit_guardian_requests_total{method="unit.reserve",outcome="${refused}"}`),
    ).toBe(1);
    // The devnet's genesis funds the treasury with UNIT in outputs free to reserve.
    expect(sample(text, 'unit_treasury_unit_hundredths')).toBeGreaterThan(0);
    const outputs = sample(text, 'unit_treasury_outputs')!;
    expect(outputs).toBeGreaterThan(0);
    expect(sample(text, 'unit_treasury_free_outputs')).toBeLessThanOrEqual(outputs);
    // Price freshness, the sweep (this single instance leads it), streams, the outbox.
    expect(sample(text, 'unit_price_stale')).toBe(0);
    expect(sample(text, 'unit_price_age_seconds')).toBeGreaterThanOrEqual(0);
    expect(sample(text, 'unit_liquidation_sweep_lag_seconds')).toBe(0);
    expect(sample(text, 'unit_live_streams')).toBe(0);
    expect(sample(text, 'unit_telegram_outbox_pending')).toBe(0);
    expect(sample(text, 'unit_csv_exports_active')).toBe(0);
    // The process's own figures come with them.
    expect(text).toContain('process_cpu_seconds_total');
    // Never the token or a key.
    expect(text).not.toContain(TOKEN);
    expect(text).not.toContain(unit.keys.guardianSecretKey);
  });

  it('counts an open live stream', async () => {
    const abort = new AbortController();
    const stream = await fetch(`${unit.url}/api/events`, { signal: abort.signal });
    expect(stream.status).toBe(200);
    const text = await (await scrape(unit.url, TOKEN)).text();
    expect(sample(text, 'unit_live_streams')).toBe(1);
    abort.abort();
  });
});

describe('metrics on METRICS_PORT', () => {
  let unit: RunningApp;
  beforeAll(async () => {
    unit = await startTestApp({ METRICS_PORT: '0' });
  });
  afterAll(() => unit?.stop());

  it('are served on their own port, not the app’s', async () => {
    expect(unit.metricsUrl).not.toBeNull();
    expect(unit.metricsUrl).not.toBe(unit.url);
    const res = await scrape(unit.metricsUrl!);
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('unit_http_request_duration_seconds');
    await expectNoMetrics(scrape(unit.url));
    expect((await fetch(`${unit.metricsUrl}/healthz`)).status).toBe(200);
    expect((await fetch(`${unit.metricsUrl}/readyz`)).status).toBe(200);
  });
});

describe('paths the app does not serve', () => {
  let unit: RunningApp;
  beforeAll(async () => {
    // A built page, so a path that fell through to it would answer 200 with its HTML.
    const dist = fs.mkdtempSync(path.join(os.tmpdir(), 'unit-web-dist-'));
    fs.writeFileSync(path.join(dist, 'index.html'), '<!doctype html><title>UNIT</title>');
    unit = await startTestApp({ METRICS_PORT: '0' }, { webDistDir: dist });
  });
  afterAll(() => unit?.stop());

  it('answers /metrics on the app port (metrics on their own port) and unknown /api paths 404, never the page', async () => {
    expect((await fetch(`${unit.url}/vaults`)).status).toBe(200); // the page's own route
    for (const route of ['/metrics', '/metrics/extra', '/api/nothing-here', '/api']) {
      const res = await fetch(`${unit.url}${route}`);
      expect(res.status, route).toBe(404);
      expect(res.headers.get('content-type'), route).toMatch(/^application\/json/);
      expect(await res.text(), route).not.toContain('<!doctype html>');
    }
  });
});

describe('with no metrics configured', () => {
  let unit: RunningApp;
  beforeAll(async () => {
    unit = await startTestApp();
  });
  afterAll(() => unit?.stop());

  it('has no /metrics, and answers /healthz and /readyz', async () => {
    expect(unit.metricsUrl).toBeNull();
    await expectNoMetrics(scrape(unit.url, TOKEN));
    const health = await fetch(`${unit.url}/healthz`);
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ status: 'ok' });
    const ready = await fetch(`${unit.url}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({
      status: 'ready',
      checks: { database: 'ok', chain: 'ok', price: 'ok' },
    });
  });

  it('refuses a weak METRICS_TOKEN and a bad METRICS_PORT at start', () => {
    expect(() => loadConfig({ METRICS_TOKEN: 'short' })).toThrow(ConfigError);
    expect(() => loadConfig({ METRICS_PORT: 'x' })).toThrow(/METRICS_PORT/);
  });
});

describe('/readyz with live price feeds', () => {
  let unit: RunningApp;
  let feeds: FakeFeed[];
  beforeAll(async () => {
    feeds = await Promise.all([
      startFakeFeed('mempool', { answer: 'price', usd: '97000' }),
      startFakeFeed('kraken', { answer: 'price', usd: '97010.00000' }),
    ]);
    unit = await startTestApp({
      PRICE_SOURCE: 'feeds',
      PRICE_FEEDS: feeds.map((feed) => feed.entry).join(','),
      PRICE_TICK: '1000',
      METRICS_TOKEN: TOKEN,
    });
  });
  afterAll(async () => {
    await unit?.stop();
    await Promise.all(feeds.map((feed) => feed.close()));
  });

  it('is ready while the feeds agree, and not ready once the price is stale', async () => {
    await unit.oracle.tick();
    expect((await fetch(`${unit.url}/readyz`)).status).toBe(200);
    let text = await (await scrape(unit.url, TOKEN)).text();
    expect(sample(text, 'unit_price_feed_fresh{feed="kraken@')).toBe(1);
    expect(sample(text, 'unit_price_feed_spread_basis_points')).toBeCloseTo(1.03, 1);

    feeds[1]!.behave({ answer: 'garbage' });
    await unit.oracle.tick();
    await unit.oracle.tick();
    expect(unit.oracle.stale).toBe(true);
    // The probe's answer is reused for 2 s; the next one sees the stale price.
    let ready = await fetch(`${unit.url}/readyz`);
    for (let i = 0; ready.status === 200 && i < 30; i++) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      ready = await fetch(`${unit.url}/readyz`);
    }
    expect(ready.status).toBe(503);
    expect(await ready.json()).toEqual({
      status: 'not_ready',
      checks: { database: 'ok', chain: 'ok', price: 'failing' },
    });
    text = await (await scrape(unit.url, TOKEN)).text();
    expect(sample(text, 'unit_price_stale')).toBe(1);
    expect(sample(text, 'unit_price_feed_fresh{feed="kraken@')).toBe(0);
  }, 30_000);
});

describe('metrics before any price was read', () => {
  let unit: RunningApp;
  let feeds: FakeFeed[];
  beforeAll(async () => {
    feeds = await Promise.all([
      startFakeFeed('mempool', { answer: 'http500' }),
      startFakeFeed('kraken', { answer: 'http500' }),
    ]);
    unit = await startTestApp({
      PRICE_SOURCE: 'feeds',
      PRICE_FEEDS: feeds.map((feed) => feed.entry).join(','),
      METRICS_TOKEN: TOKEN,
    });
  });
  afterAll(async () => {
    await unit?.stop();
    await Promise.all(feeds.map((feed) => feed.close()));
  });

  it('exports the price age as NaN (unknown), never 0, and is not ready on price', async () => {
    expect(unit.oracle.latest()).toBeNull();
    const text = await (await scrape(unit.url, TOKEN)).text();
    // NaN, which prom-client writes `Nan` (Prometheus reads the value case-insensitively).
    expect(text).toMatch(/^unit_price_age_seconds nan$/im);
    expect(sample(text, 'unit_price_age_seconds ')).toBeNaN();
    expect(sample(text, 'unit_price_stale')).toBe(1);
    const ready = await fetch(`${unit.url}/readyz`);
    expect(ready.status).toBe(503);
    expect(((await ready.json()) as { checks: { price: string } }).checks.price).toBe('failing');
  });
});

const pgUrl = process.env.TEST_DATABASE_URL;

describe.runIf(pgUrl)('metrics and /readyz on PostgreSQL', () => {
  let unit: RunningApp;
  beforeAll(async () => {
    unit = await startTestApp(
      { DATABASE_URL: pgUrl!, METRICS_TOKEN: TOKEN },
      { databaseSchema: `metrics_${randomBytes(6).toString('hex')}` },
    );
  });
  afterAll(() => unit?.stop());

  it('reads the outbox and the treasury from PostgreSQL, and is ready', async () => {
    const text = await (await scrape(unit.url, TOKEN)).text();
    expect(sample(text, 'unit_telegram_outbox_pending')).toBe(0);
    expect(sample(text, 'unit_treasury_free_outputs')).toBeGreaterThan(0);
    const ready = await fetch(`${unit.url}/readyz`);
    expect(await ready.json()).toEqual({
      status: 'ready',
      checks: { database: 'ok', chain: 'ok', price: 'ok' },
    });
  });
});

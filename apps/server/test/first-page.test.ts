// The web app's page with its first data (src/http/first-page.ts): the API's own answers to the
// app's first requests, the vault of the key the cookie names, the price in the prerendered shell,
// and a page that no shared cache keeps.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatUsd } from '@unit/protocol';
import { insertVault } from '../src/store';
import { vaultKeyCookie, withPrice, VAULT_KEY_COOKIE } from '../src/http/first-page';
import { getJson, startTestApp, type RunningApp } from './support';
import { smallVault } from './rows';

const SLOT = '<span class="skeleton" data-first-price="" style="width:7ch"></span>';
const WELCOME = '<main class="main"><section class="welcome">Welcome</section></main>';
// The build inlines the shell's rules and links the whole stylesheet at the end of the body.
const SHELL_STYLE = '<style>.welcome{margin:0}</style>';
const SHEET_LINK = '<link rel="stylesheet" crossorigin href="/assets/style-abc.css">';
const WHOLE_SHEET = '.welcome{margin:0}.card{padding:0}';
const PAGE = `<!doctype html><html><head><title>UNIT</title>${SHELL_STYLE}</head><body><div id="root"></div>${SLOT}${WELCOME}${SHEET_LINK}</body></html>`;
const key = '5a'.repeat(32);
const vaultId = '6b'.repeat(32);

let dist: string;
let web: RunningApp;

beforeAll(async () => {
  dist = fs.mkdtempSync(path.join(os.tmpdir(), 'unit-dist-'));
  fs.mkdirSync(path.join(dist, '.vite'));
  fs.writeFileSync(path.join(dist, 'index.html'), PAGE);
  fs.mkdirSync(path.join(dist, 'assets'));
  fs.writeFileSync(path.join(dist, 'assets', 'style-abc.css'), WHOLE_SHEET);
  fs.writeFileSync(
    path.join(dist, '.vite', 'manifest.json'),
    JSON.stringify({ 'src/chart/RatioChart.tsx': { file: 'assets/RatioChart-abc.js' } }),
  );
  web = await startTestApp({}, { webDistDir: dist });
  await insertVault(web.store.db, smallVault(vaultId, key, '</script><script>alert(1)</script>'));
});
afterAll(async () => {
  await web.stop();
  fs.rmSync(dist, { recursive: true, force: true });
});

const firstData = (html: string): Record<string, unknown> => {
  const match = html.match(/<script type="application\/json" id="first-data">(.*?)<\/script>/s);
  expect(match, 'the page carries its first data').not.toBeNull();
  return JSON.parse(match![1]!) as Record<string, unknown>;
};

describe('the first page', () => {
  it("carries the API's own answers to every page's first requests, and the price in the shell", async () => {
    const res = await fetch(`${web.url}/liquidations`, {
      headers: { 'accept-encoding': 'identity' },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('private, no-cache');
    expect(res.headers.get('vary')).toMatch(/cookie/);
    const html = await res.text();
    const data = firstData(html);
    expect(Object.keys(data).sort()).toEqual([
      '/api/bitcoin-price',
      '/api/config',
      '/api/price-history?timePeriod=24h',
    ]);
    expect(data['/api/config']).toEqual((await getJson(`${web.url}/api/config`)).body);
    const price = data['/api/bitcoin-price'] as { USD: number };
    expect(html).toContain(
      `<strong class="num">$${price.USD.toLocaleString('en-US', { minimumFractionDigits: 2 })}</strong>`,
    );
    expect(html).not.toContain('data-first-price');
    // no vault: no chart to preload
    expect(html).not.toContain('modulepreload');
    // the shell's rules, the whole stylesheet after it
    expect(html).toContain(SHELL_STYLE);
    expect(html).toContain(SHEET_LINK);
  });

  it("carries the cookie's vault, its history and chart points, and preloads the chart", async () => {
    const res = await fetch(`${web.url}/`, {
      headers: { cookie: `other=1; ${VAULT_KEY_COOKIE}=${key}`, 'accept-encoding': 'br' },
    });
    expect(res.headers.get('content-encoding')).toBe('br');
    // fetch decodes the brotli body itself
    const html = await res.text();
    const data = firstData(html);
    const vaults = `/api/vaults?pubkey=${key}`;
    expect(data[vaults]).toEqual((await getJson(`${web.url}${vaults}`)).body);
    for (const url of [
      `/api/vaults/${vaultId}/history?limit=20`,
      `/api/vaults/${vaultId}/points?timePeriod=24h`,
    ])
      expect(data[url]).toEqual((await getJson(`${web.url}${url}`)).body);
    expect(html).toContain(
      '<link rel="modulepreload" crossorigin href="/assets/RatioChart-abc.js">',
    );
    // the vault's name cannot close the data block
    expect(html).not.toContain('</script><script>alert(1)');
    // the dashboard's cards in place of the welcome section, its figures the vault's
    expect(html).not.toContain(WELCOME);
    expect(html).toContain('<h1>&lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt;</h1>');
    expect(html).toContain('data-testid="btc-deposited">0.1<!-- --> BTC</p>');
    expect(html).toContain('data-testid="unit-debt">2,000.00<!-- --> UNIT</p>');
    const price = data['/api/bitcoin-price'] as { USD: number };
    expect(html).toContain(`data-testid="btc-price-now">${formatUsd(price.USD)}</dd>`);
    // the cards paint with the whole stylesheet, inline in place of the shell's rules
    expect(html).toContain(`<style>${WHOLE_SHEET}</style>`);
    expect(html).not.toContain(SHELL_STYLE);
    expect(html).not.toContain('rel="stylesheet"');
  });

  it('asks nothing more for a key without a vault, or a cookie that is not a key', async () => {
    for (const cookie of [`${VAULT_KEY_COOKIE}=${'7c'.repeat(32)}`, `${VAULT_KEY_COOKIE}=../x`]) {
      const res = await fetch(`${web.url}/`, { headers: { cookie, 'accept-encoding': 'gzip' } });
      const html = await res.text();
      const data = firstData(html);
      expect(Object.keys(data).filter((url) => url.startsWith('/api/vaults/'))).toEqual([]);
      expect(html).toContain(WELCOME);
      expect(html).toContain(SHEET_LINK);
    }
  });
});

describe('the vault key cookie and the shell price', () => {
  it('reads only 32 bytes of lower-case hex under its own name', () => {
    expect(vaultKeyCookie(`${VAULT_KEY_COOKIE}=${key}`)).toBe(key);
    expect(vaultKeyCookie(`a=b; ${VAULT_KEY_COOKIE}=${key}; c=d`)).toBe(key);
    expect(vaultKeyCookie(`x${VAULT_KEY_COOKIE}=${key}`)).toBeNull();
    expect(vaultKeyCookie(`${VAULT_KEY_COOKIE}=${key.toUpperCase()}`)).toBeNull();
    expect(vaultKeyCookie(`${VAULT_KEY_COOKIE}=${key}00`)).toBeNull();
    expect(vaultKeyCookie(undefined)).toBeNull();
  });

  it('leaves a stale or missing price to the app', () => {
    const fresh = { USD: 95_000, time: 1, stale: false, stale_reason: null };
    expect(withPrice(PAGE, fresh)).toContain('<strong class="num">$95,000.00</strong>');
    expect(withPrice(PAGE, { ...fresh, stale: true })).toBe(PAGE);
    expect(withPrice(PAGE, undefined)).toBe(PAGE);
  });
});

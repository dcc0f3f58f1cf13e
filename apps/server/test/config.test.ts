import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, REPO_ROOT } from '../src/config';

describe('loadConfig', () => {
  it('serves the devnet on 127.0.0.1:8080 with no environment at all', () => {
    const config = loadConfig({});
    expect(config.port).toBe(8080);
    expect(config.host).toBe('127.0.0.1');
    expect(config.network).toBe('devnet');
    expect(config.databaseUrl).toBeNull();
    expect(config.dataDir).toBe(path.join(REPO_ROOT, 'data'));
    expect(config.startPriceCents).toBe(9_500_000);
    expect(config.telegramBotToken).toBeNull();
  });

  it("links this product's own docs, and no social account unless configured (issue 22)", () => {
    expect(loadConfig({}).links).toEqual({
      docs: '/docs/index.html',
      twitter: null,
      discord: null,
      telegram: null,
    });
    expect(
      loadConfig({
        DOCS_URL: 'https://docs.unit.example',
        TWITTER_URL: 'https://x.com/unit',
        DISCORD_URL: 'https://discord.gg/unit',
        TELEGRAM_URL: 'https://t.me/unit',
      }).links,
    ).toEqual({
      docs: 'https://docs.unit.example',
      twitter: 'https://x.com/unit',
      discord: 'https://discord.gg/unit',
      telegram: 'https://t.me/unit',
    });
    // a link the page shows may not run script
    expect(() => loadConfig({ TWITTER_URL: 'javascript:alert(1)' })).toThrow(/TWITTER_URL/);
    expect(() => loadConfig({ DOCS_URL: 'https://x.example/"><script>' })).toThrow(/DOCS_URL/);
  });

  it('points the devnet chain services at this server', () => {
    expect(loadConfig({}).services).toEqual({
      esploraUrl: '/esplora',
      mempoolUrl: '/mempool',
      ordinalsUrl: '/ordinals',
      runesUrl: '/runes',
      explorerUrl: '/explorer',
    });
  });

  it('uses public services on signet unless overridden', () => {
    const config = loadConfig({
      NETWORK: 'signet',
      ESPLORA_URL: 'https://example.org/api',
      PRICE_FEEDS: 'mempool@https://mempool.space,kraken@https://api.kraken.com',
    });
    expect(config.services.esploraUrl).toBe('https://example.org/api');
    expect(config.services.mempoolUrl).toBe('https://mempool.space');
  });

  it('lists every bad value with a clear message', () => {
    let caught: unknown;
    try {
      loadConfig({ PORT: 'eighty', NETWORK: 'testnet3', GUARDIAN_KEY: 'abc', LOG_LEVEL: 'loud' });
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(ConfigError);
    const { problems } = caught as ConfigError;
    expect(problems).toContain('PORT must be a whole number');
    expect(problems).toContain('NETWORK must be one of devnet, signet, mutinynet, mainnet');
    expect(problems).toContain('GUARDIAN_KEY must be 64 hex characters (32 bytes)');
    expect(problems).toContain(
      'LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent',
    );
  });

  it('refuses a non-postgres DATABASE_URL and an out-of-range port', () => {
    expect(() => loadConfig({ DATABASE_URL: 'mysql://x' })).toThrow(/postgres:\/\//);
    expect(() => loadConfig({ PORT: '70000' })).toThrow(/PORT must be at most 65535/);
  });

  it('reads START_PRICE in whole USD and BLOCK_INTERVAL in milliseconds', () => {
    const config = loadConfig({ START_PRICE: '60000', BLOCK_INTERVAL: '2500' });
    expect(config.startPriceCents).toBe(6_000_000);
    expect(config.blockIntervalMs).toBe(2500);
  });

  it('takes BLOCK_INTERVAL=0 as blocks only on demand', () => {
    expect(loadConfig({ BLOCK_INTERVAL: '0' }).blockIntervalMs).toBe(0);
    expect(() => loadConfig({ BLOCK_INTERVAL: '-5' })).toThrow(/BLOCK_INTERVAL/);
  });

  it('reads the edge limits, with modest defaults, and refuses a time-out under a second', () => {
    expect(loadConfig({}).limits).toEqual({
      writesPerMinute: 30,
      devnetWritesPerMinute: 100,
      requestTimeoutMs: 30_000,
      idleTimeoutMs: 60_000,
    });
    const raised = loadConfig({ WRITES_PER_MINUTE: '1000', DEVNET_WRITES_PER_MINUTE: '5000' });
    expect(raised.limits.writesPerMinute).toBe(1000);
    expect(raised.limits.devnetWritesPerMinute).toBe(5000);
    expect(() => loadConfig({ REQUEST_TIMEOUT: '10' })).toThrow(
      /REQUEST_TIMEOUT \(milliseconds\) must be at least 1000/,
    );
    expect(() => loadConfig({ WRITES_PER_MINUTE: '0' })).toThrow(/WRITES_PER_MINUTE/);
  });

  it('reads the price feeds on real networks, with feeds as the default there', () => {
    const config = loadConfig({
      NETWORK: 'mainnet',
      GUARDIAN_KEY: '11'.repeat(32),
      PRICE_FEEDS: 'coinbase@https://api.coinbase.com,bitstamp@https://www.bitstamp.net',
      PRICE_MAX_SPREAD: '2.5',
    });
    expect(config.priceSource).toBe('feeds');
    expect(config.priceFeeds.map((f) => f.kind)).toEqual(['coinbase', 'bitstamp']);
    expect(config.priceMaxSpreadBasisPoints).toBe(250);
    expect(loadConfig({}).priceSource).toBe('simulated');
    expect(loadConfig({}).priceMaxSpreadBasisPoints).toBe(300);
  });

  it('refuses the simulated price off the devnet, naming PRICE_SOURCE, one message per problem', () => {
    let caught: unknown;
    try {
      loadConfig({
        NETWORK: 'signet',
        PRICE_SOURCE: 'simulated',
        PRICE_FEEDS: 'binance@https://api.binance.com',
        PRICE_MAX_SPREAD: '0.5',
        PORT: 'eighty',
      });
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(ConfigError);
    expect((caught as ConfigError).problems).toEqual([
      'PORT must be a whole number',
      'PRICE_MAX_SPREAD must be a percentage from 1 to 50, e.g. 3 or 2.5',
      'PRICE_SOURCE=simulated is only for the devnet; on signet set PRICE_SOURCE=feeds and PRICE_FEEDS',
      'PRICE_FEEDS entry "binance@https://api.binance.com" must be kind@baseUrl with kind one of mempool, kraken, coinbase, bitstamp',
    ]);
    expect(() => loadConfig({ NETWORK: 'mainnet' })).toThrow(
      /PRICE_FEEDS must list at least two feeds .* when PRICE_SOURCE is feeds/,
    );
    expect(() =>
      loadConfig({ NETWORK: 'mainnet', PRICE_FEEDS: 'kraken@https://api.kraken.com' }),
    ).toThrow(/at least two feeds/);
  });

  it('takes the load balancers to believe as a list of addresses, and nothing else', () => {
    expect(loadConfig({}).trustProxy).toBeNull();
    expect(loadConfig({ TRUST_PROXY: '10.0.0.0/8, loopback' }).trustProxy).toBe(
      '10.0.0.0/8, loopback',
    );
    expect(() => loadConfig({ TRUST_PROXY: 'true; drop' })).toThrow(ConfigError);
  });
});

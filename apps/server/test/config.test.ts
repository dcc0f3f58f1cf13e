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
    const config = loadConfig({ NETWORK: 'signet', ESPLORA_URL: 'https://example.org/api' });
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

  it('takes the load balancers to believe as a list of addresses, and nothing else', () => {
    expect(loadConfig({}).trustProxy).toBeNull();
    expect(loadConfig({ TRUST_PROXY: '10.0.0.0/8, loopback' }).trustProxy).toBe(
      '10.0.0.0/8, loopback',
    );
    expect(() => loadConfig({ TRUST_PROXY: 'true; drop' })).toThrow(ConfigError);
  });
});

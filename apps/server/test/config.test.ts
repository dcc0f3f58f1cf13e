import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, publicOriginOf, REPO_ROOT } from '../src/config';
import { createOracleKeyFile } from '../src/oracle/keys';
import { localGuardianArgs } from '../src/network-client/local-network';

/** A fresh oracle key file, mode 0600, as `npm run operator -- oracle-key` writes it. */
function oracleKeyFile(): string {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'unit-config-')), 'oracle.key');
  createOracleKeyFile(file);
  return file;
}

/** Everything a real network needs named: services, rune, keys, feeds. */
function signetEnv(): Record<string, string> {
  return {
    NETWORK: 'signet',
    PUBLIC_ORIGIN: 'https://app.example',
    ESPLORA_URL: 'http://127.0.0.1:3000/esplora',
    MEMPOOL_URL: 'http://127.0.0.1:3000/mempool',
    ORDINALS_URL: 'http://127.0.0.1:3000/ordinals',
    RUNES_URL: 'http://127.0.0.1:3000/runes',
    EXPLORER_URL: 'http://127.0.0.1:3000/explorer',
    UNIT_RUNE_ID: '1:1',
    GUARDIAN_KEY: '11'.repeat(32),
    ORACLE_KEY_FILE: oracleKeyFile(),
    PRICE_FEEDS: 'mempool@https://mempool.space,kraken@https://api.kraken.com',
  };
}

function problemsOf(env: Record<string, string>): string[] {
  try {
    loadConfig(env);
  } catch (err) {
    if (err instanceof ConfigError) return err.problems;
    throw err;
  }
  return [];
}

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

  it("links this product's own docs, social links included until accounts are configured", () => {
    expect(loadConfig({}).links).toEqual({
      docs: '/docs/index.html',
      twitter: '/docs/index.html',
      discord: '/docs/index.html',
      telegram: '/docs/index.html',
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

  it('asks the open validators UNIT_VALIDATORS lists, and refuses what is not a list of URLs', () => {
    expect(loadConfig({}).validators).toEqual([]);
    expect(
      loadConfig({ UNIT_VALIDATORS: ' http://127.0.0.1:8090/ ,https://v.example/unit' }).validators,
    ).toEqual(['http://127.0.0.1:8090', 'https://v.example/unit']);
    expect(() => loadConfig({ UNIT_VALIDATORS: 'file:///etc/passwd' })).toThrow(
      /UNIT_VALIDATORS must be at most 16 comma-separated http\(s\) URLs/,
    );
    const seventeen = Array.from({ length: 17 }, (_, i) => `http://v${i}.example`).join(',');
    expect(() => loadConfig({ UNIT_VALIDATORS: seventeen })).toThrow(/UNIT_VALIDATORS/);
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

  it('serves a real network exactly as configured: its services and its UNIT rune id', () => {
    const env = signetEnv();
    const config = loadConfig({ ...env, UNIT_RUNE_ID: '840000:3' });
    expect(config.services).toEqual({
      esploraUrl: env.ESPLORA_URL,
      mempoolUrl: env.MEMPOOL_URL,
      ordinalsUrl: env.ORDINALS_URL,
      runesUrl: env.RUNES_URL,
      explorerUrl: env.EXPLORER_URL,
    });
    expect(config.unitRuneId).toBe('840000:3');
    expect(config.oracleKeyFile).toBe(env.ORACLE_KEY_FILE);
    // The devnet etches its own: nothing configured, and a configured one would contradict it.
    expect(loadConfig({}).unitRuneId).toBeNull();
    expect(problemsOf({ UNIT_RUNE_ID: '1:1' })).toEqual([
      'UNIT_RUNE_ID is for real networks; the devnet etches its own UNIT',
    ]);
  });

  it('guesses nothing off the devnet: every missing identity is listed at once', () => {
    const problems = problemsOf({
      NETWORK: 'signet',
      PRICE_FEEDS: 'mempool@https://mempool.space,kraken@https://api.kraken.com',
      PORT: 'eighty',
    });
    expect(problems[0]).toBe('PORT must be a whole number');
    expect(problems.map((p) => p.split(' ')[0])).toEqual([
      'PORT',
      'ESPLORA_URL',
      'MEMPOOL_URL',
      'ORDINALS_URL',
      'RUNES_URL',
      'EXPLORER_URL',
      'UNIT_RUNE_ID',
      'GUARDIAN_KEY',
      'ORACLE_KEY_FILE',
    ]);
    expect(problems).toContain(
      "GUARDIAN_KEY is required on signet: the guardian's 32-byte hex secret key (the treasury key derives from it)",
    );
    // Each one alone is missed too.
    for (const name of ['RUNES_URL', 'UNIT_RUNE_ID', 'GUARDIAN_KEY', 'ORACLE_KEY_FILE']) {
      const env = signetEnv();
      delete env[name];
      expect(problemsOf(env)).toEqual([
        expect.stringMatching(new RegExp(`^${name} is required on signet`)),
      ]);
    }
  });

  it('checks the keys themselves before anything starts', () => {
    // n, the group order: 64 hex characters, but no secret key.
    const order = 'fffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141';
    expect(problemsOf({ ...signetEnv(), GUARDIAN_KEY: order })).toEqual([
      'GUARDIAN_KEY is not a valid secp256k1 secret key',
    ]);
    const env = signetEnv();
    fs.chmodSync(env.ORACLE_KEY_FILE!, 0o644);
    expect(problemsOf(env)).toEqual([
      `ORACLE_KEY_FILE ${env.ORACLE_KEY_FILE} can be read by others (mode 644); chmod 600 it`,
    ]);
    fs.rmSync(env.ORACLE_KEY_FILE!);
    expect(problemsOf(env)).toEqual([`ORACLE_KEY_FILE ${env.ORACLE_KEY_FILE} cannot be read`]);
    fs.writeFileSync(env.ORACLE_KEY_FILE!, '{"oracle_key":"zz"}', { mode: 0o600 });
    expect(problemsOf(env)).toEqual([
      `ORACLE_KEY_FILE ${env.ORACLE_KEY_FILE} must hold "oracle_key" and "oracle_secret", 64 hex characters each`,
    ]);
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

  it("reads runes through this product's routes unless RUNES_API=ord", () => {
    expect(loadConfig({}).runesApi).toBe('unit');
    expect(loadConfig({ RUNES_API: 'ord' }).runesApi).toBe('ord');
    expect(() => loadConfig({ RUNES_API: 'hiro' })).toThrow(/RUNES_API must be unit or ord/);
  });

  it('bounds every chain service call by CHAIN_TIMEOUT, 10 s unless set', () => {
    expect(loadConfig({}).chainTimeoutMs).toBe(10_000);
    expect(loadConfig({ CHAIN_TIMEOUT: '2500' }).chainTimeoutMs).toBe(2_500);
    expect(() => loadConfig({ CHAIN_TIMEOUT: '0' })).toThrow(/CHAIN_TIMEOUT/);
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
      ...signetEnv(),
      NETWORK: 'mainnet',
      PRICE_FEEDS: 'coinbase@https://api.coinbase.com,bitstamp@https://www.bitstamp.net',
      PRICE_MAX_SPREAD: '2.5',
    });
    expect(config.priceSource).toBe('feeds');
    expect(config.priceFeeds.map((f) => f.kind)).toEqual(['coinbase', 'bitstamp']);
    expect(config.priceMaxSpreadBasisPoints).toBe(250);
    expect(loadConfig({}).priceSource).toBe('simulated');
    expect(loadConfig({}).priceMaxSpreadBasisPoints).toBe(300);
  });

  it('refuses PRICE_SOURCE and PRICE_FEEDS with a guardian network run elsewhere, and needs neither', () => {
    const { PRICE_FEEDS: _feeds, ...withoutFeeds } = signetEnv();
    const external = { ...withoutFeeds, GUARDIAN_NETWORK: 'external' };
    // The app's price is the guardians' quorum: off the devnet it needs no feeds of its own.
    expect(problemsOf(external).filter((p) => p.startsWith('PRICE_'))).toEqual([]);
    expect(
      problemsOf({ ...external, PRICE_SOURCE: 'feeds', PRICE_FEEDS: signetEnv().PRICE_FEEDS! }),
    ).toEqual(
      expect.arrayContaining(
        ['PRICE_SOURCE', 'PRICE_FEEDS'].map(
          (name) =>
            `${name} is not read with GUARDIAN_NETWORK=external: the app's price is its guardians' quorum, and each guardian reads its own feeds (guardian start --feeds); remove ${name}`,
        ),
      ),
    );
  });

  it('refuses PRICE_FEEDS that would never be read (the simulated price on the devnet), with the reason', () => {
    expect(
      problemsOf({ PRICE_FEEDS: 'mempool@http://127.0.0.1:1,kraken@http://127.0.0.1:2' }),
    ).toEqual([
      'PRICE_FEEDS is read only when PRICE_SOURCE is feeds, and PRICE_SOURCE is simulated (the devnet default), so these feeds would never be asked: set PRICE_SOURCE=feeds to read them (with the local guardian network, its guardians read them), or remove PRICE_FEEDS',
    ]);
    const feeds = loadConfig({
      PRICE_SOURCE: 'feeds',
      PRICE_FEEDS: 'mempool@http://127.0.0.1:1,kraken@http://127.0.0.1:2',
    });
    expect(feeds.priceFeeds.map((f) => f.kind)).toEqual(['mempool', 'kraken']);
    // With the local guardian network the embedded guardians are given them as their feeds.
    const local = {
      ...feeds,
      guardianNetwork: { ...feeds.guardianNetwork, mode: 'local' as const },
    };
    const args = localGuardianArgs(local, 8080);
    expect(args[args.indexOf('--feeds') + 1]).toBe(
      'mempool@http://127.0.0.1:1,kraken@http://127.0.0.1:2',
    );
    expect(args[args.indexOf('--max-spread') + 1]).toBe('300');
    const simulated = localGuardianArgs({ ...local, priceSource: 'simulated' }, 8080);
    expect(simulated[simulated.indexOf('--feeds') + 1]).toBe('devnet@http://127.0.0.1:8080');
    expect(simulated).not.toContain('--max-spread');
  });

  it('refuses the simulated price off the devnet, naming PRICE_SOURCE, one message per problem', () => {
    let caught: unknown;
    try {
      loadConfig({
        ...signetEnv(),
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
    const { PRICE_FEEDS: _feeds, ...noFeeds } = signetEnv();
    expect(() => loadConfig({ ...noFeeds, NETWORK: 'mainnet' })).toThrow(
      /PRICE_FEEDS must list at least two feeds .* when PRICE_SOURCE is feeds/,
    );
    expect(() =>
      loadConfig({ ...noFeeds, NETWORK: 'mainnet', PRICE_FEEDS: 'kraken@https://api.kraken.com' }),
    ).toThrow(/at least two feeds/);
  });

  it('needs PUBLIC_ORIGIN off the devnet, an origin and nothing more', () => {
    const { PUBLIC_ORIGIN: _origin, ...signet } = signetEnv();
    expect(() => loadConfig(signet)).toThrow(/PUBLIC_ORIGIN is required off the devnet/);
    expect(loadConfig({ ...signet, PUBLIC_ORIGIN: 'https://app.example/' }).publicOrigin).toBe(
      'https://app.example',
    );
    for (const bad of ['app.example', 'https://app.example/path', 'ftp://app.example', 'x']) {
      expect(() => loadConfig({ PUBLIC_ORIGIN: bad }), bad).toThrow(
        /PUBLIC_ORIGIN must be an origin/,
      );
    }
    // The devnet without one: its listening address, the bound port once it listens.
    const devnet = loadConfig({});
    expect(devnet.publicOrigin).toBeNull();
    expect(publicOriginOf(devnet, 41_234)).toBe('http://127.0.0.1:41234');
    expect(publicOriginOf(loadConfig({ HOST: '0.0.0.0' }), 8080)).toBe('http://127.0.0.1:8080');
    expect(publicOriginOf(loadConfig({ HOST: '::1' }), 8080)).toBe('http://[::1]:8080');
  });

  it('takes the load balancers to believe as a list of addresses, and nothing else', () => {
    expect(loadConfig({}).trustProxy).toBeNull();
    expect(loadConfig({ TRUST_PROXY: '10.0.0.0/8, loopback' }).trustProxy).toBe(
      '10.0.0.0/8, loopback',
    );
    expect(() => loadConfig({ TRUST_PROXY: 'true; drop' })).toThrow(ConfigError);
  });

  it('takes the live streams allowed per address and in all, as whole numbers in range', () => {
    expect(loadConfig({}).liveStreams).toEqual({ perAddress: 8, max: 10_000 });
    expect(
      loadConfig({ LIVE_STREAMS_PER_ADDRESS: '2', LIVE_STREAMS_MAX: '500' }).liveStreams,
    ).toEqual({ perAddress: 2, max: 500 });
    expect(() => loadConfig({ LIVE_STREAMS_PER_ADDRESS: '0' })).toThrow(ConfigError);
    expect(() => loadConfig({ LIVE_STREAMS_MAX: 'many' })).toThrow(ConfigError);
  });

  it('runs local guardians pinned to the devnet, and refuses GUARDIAN_NETWORK=local elsewhere', () => {
    const args = localGuardianArgs(loadConfig({ GUARDIAN_DIR: '/tmp/g' }), 8080);
    expect(args.join(' ')).toContain('--policy vault --network devnet');
    expect(problemsOf({ ...signetEnv(), GUARDIAN_NETWORK: 'local' })).toEqual([
      expect.stringMatching(
        /^GUARDIAN_NETWORK=local is for the devnet only .* GUARDIAN_NETWORK=external$/,
      ),
    ]);
    expect(problemsOf({ ...signetEnv(), PRICE_FEEDS: '', GUARDIAN_NETWORK: 'external' })).toEqual(
      [],
    );
  });

  it('passes GUARDIAN_MAX_FEE_RATE to every local guardian as --max-fee-rate, and refuses a bad one', () => {
    const set = loadConfig({ GUARDIAN_MAX_FEE_RATE: '250', GUARDIAN_DIR: '/tmp/g' });
    expect(set.guardianNetwork.maxFeeRate).toBe(250);
    // `guardian local` passes its start flags on to each guardian it runs (guardian-net cli.ts).
    const args = localGuardianArgs(set, 8080);
    expect(args.slice(0, 7)).toEqual(['local', '--dir', '/tmp/g', '--n', '3', '--t', '2']);
    expect(args).toContain('--policy');
    expect(args.slice(-2)).toEqual(['--max-fee-rate', '250']);
    // Unset: no flag, the guardians keep their own default (500 sat/vB).
    const unset = loadConfig({ GUARDIAN_DIR: '/tmp/g' });
    expect(unset.guardianNetwork.maxFeeRate).toBeUndefined();
    expect(localGuardianArgs(unset, 8080)).not.toContain('--max-fee-rate');
    expect(problemsOf({ GUARDIAN_MAX_FEE_RATE: '0' })).toEqual([
      'GUARDIAN_MAX_FEE_RATE (sat/vB) must be at least 1',
    ]);
    expect(problemsOf({ GUARDIAN_MAX_FEE_RATE: '2.5' })).toEqual([
      'GUARDIAN_MAX_FEE_RATE (sat/vB) must be a whole number',
    ]);
    expect(problemsOf({ GUARDIAN_MAX_FEE_RATE: 'fast' })).toEqual([
      'GUARDIAN_MAX_FEE_RATE (sat/vB) must be a whole number',
    ]);
    expect(problemsOf({ GUARDIAN_MAX_FEE_RATE: '1000000' })).toEqual([
      'GUARDIAN_MAX_FEE_RATE (sat/vB) must be at most 100000',
    ]);
  });
});

import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { btcToSats, cliRequest } from './cli';

describe('devnet CLI', () => {
  it('converts BTC text to sats exactly', () => {
    expect(btcToSats('1')).toBe(100_000_000n);
    expect(btcToSats('0.00000001')).toBe(1n);
    expect(btcToSats('21.5')).toBe(2_150_000_000n);
    expect(() => btcToSats('0.123456789')).toThrow();
    expect(() => btcToSats('-1')).toThrow();
  });

  it('round-trips every sats amount written as BTC text', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 2_100_000_000_000_000n }), (sats) => {
        const text = `${sats / 100_000_000n}.${(sats % 100_000_000n).toString().padStart(8, '0')}`;
        expect(btcToSats(text)).toBe(sats);
      }),
    );
  });

  it('maps commands to the devnet endpoints', () => {
    expect(cliRequest(['fund', 'tb1qxyz', '0.5'])).toEqual({
      path: '/api/devnet/faucet',
      body: { address: 'tb1qxyz', sats: 50_000_000 },
    });
    expect(cliRequest(['mine', '3'])).toEqual({ path: '/api/devnet/mine', body: { blocks: 3 } });
    expect(cliRequest(['price', '95000.5'])).toEqual({
      path: '/api/devnet/price',
      body: { usd: 95000.5 },
    });
    expect(() => cliRequest(['mine', '0'])).toThrow('usage: mine');
    expect(() => cliRequest(['burn'])).toThrow('usage:');
  });
});

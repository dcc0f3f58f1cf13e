import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  canContinueWithVaultName,
  isTestnetAddress,
  sanitizeAmountInput,
  validateBtcAmount,
  validateCreateVault,
  validateOperationCost,
  validateUnitAmount,
  validateVaultName,
  vaultNameCounter,
} from './validation';

const BTC = { decimals: 8, intDigits: 8 };
const UNIT = { decimals: 2, intDigits: 12 };

describe('sanitizeAmountInput', () => {
  it.each([
    ['0.12345678', BTC, '0.12345678'],
    ['0.123456789', BTC, '0.12345678'],
    ['1,000.129', UNIT, '1000.12'],
    ['1.2.3', UNIT, '1.23'],
    ['abc', UNIT, ''],
    ['.5', UNIT, '0.5'],
    ['007', UNIT, '7'],
    ['0', UNIT, '0'],
    ['5.', UNIT, '5.'],
    ['123456789.5', BTC, '12345678.5'],
    ['1.5', { decimals: 0, intDigits: 3 }, '15'],
  ])('%s with %o becomes %s', (raw, opts, expected) => {
    expect(sanitizeAmountInput(raw, opts)).toBe(expected);
  });
  it('always yields digits with at most one point, capped decimals and integer digits', () => {
    fc.assert(
      fc.property(fc.string(), (raw) => {
        const out = sanitizeAmountInput(raw, UNIT);
        expect(out).toMatch(/^(\d{0,12}(\.\d{0,2})?)?$/);
      }),
    );
  });
});

describe('validateVaultName', () => {
  it('accepts 20 characters and refuses 21 with the spec message', () => {
    expect(validateVaultName('a'.repeat(20))).toBeNull();
    expect(validateVaultName('a'.repeat(21))).toBe('Use a maximum of 20 characters.');
  });
  it('counts characters, not UTF-16 units', () => {
    expect(validateVaultName('🚀'.repeat(20))).toBeNull();
    expect(vaultNameCounter('🚀🚀')).toBe('2/20');
  });
  it('requires a name to continue', () => {
    expect(canContinueWithVaultName('')).toBe(false);
    expect(canContinueWithVaultName('   ')).toBe(false);
    expect(canContinueWithVaultName('My vault')).toBe(true);
    expect(canContinueWithVaultName('a'.repeat(21))).toBe(false);
  });
});

describe('validateBtcAmount', () => {
  it('refuses below the minimum with the minimum in BTC', () => {
    expect(validateBtcAmount({ amountSats: 4_999, maxSats: 1_000_000 })).toBe(
      'The lowest accepted amount is 0.00005 BTC',
    );
    expect(validateBtcAmount({ amountSats: 5_000, maxSats: 1_000_000 })).toBeNull();
  });
  it('refuses above the balance as Bitcoin or USD', () => {
    expect(validateBtcAmount({ amountSats: 1_000_001, maxSats: 1_000_000 })).toBe(
      'Not Enough Bitcoin',
    );
    expect(validateBtcAmount({ amountSats: 1_000_001, maxSats: 1_000_000, currency: 'USD' })).toBe(
      'Not Enough USD',
    );
    expect(validateBtcAmount({ amountSats: 1_000_000, maxSats: 1_000_000 })).toBeNull();
  });
  it('has no error for an empty amount', () => {
    expect(validateBtcAmount({ amountSats: 0, maxSats: 0 })).toBeNull();
  });
});

describe('validateUnitAmount', () => {
  it('refuses above the maximum with the maximum in UNIT', () => {
    expect(validateUnitAmount({ amountCents: 123_451, maxCents: 123_450 })).toBe(
      'Maximum value cannot exceed 1,234.50 UNIT',
    );
    expect(validateUnitAmount({ amountCents: 123_450, maxCents: 123_450 })).toBeNull();
  });
});

describe('validateOperationCost', () => {
  it('blocks when the wallet cannot pay the transaction', () => {
    expect(validateOperationCost({ walletSats: 1_000, costSats: 2_500 })).toBe(
      'The transaction costs 0.000025 BTC, but you only have 0.00001 BTC in your wallet',
    );
    expect(validateOperationCost({ walletSats: 2_500, costSats: 2_500 })).toBeNull();
  });
});

describe('validateCreateVault', () => {
  const ok = { walletConnected: true, btcSats: 10_000, unitCents: 100, priceUsd: 95_000 };
  it('passes with wallet, BTC, UNIT and price', () => {
    expect(validateCreateVault(ok)).toEqual({ ok: true });
  });
  it('names the first missing requirement', () => {
    expect(validateCreateVault({ ...ok, walletConnected: false })).toMatchObject({
      ok: false,
      problem: 'no_wallet',
    });
    expect(validateCreateVault({ ...ok, btcSats: 0 })).toMatchObject({
      ok: false,
      problem: 'no_btc',
    });
    expect(validateCreateVault({ ...ok, unitCents: 0 })).toMatchObject({
      ok: false,
      problem: 'no_unit',
    });
    expect(validateCreateVault({ ...ok, priceUsd: null })).toEqual({
      ok: false,
      problem: 'no_price',
      message: 'Can not fetch bitcoin price',
    });
  });
});

describe('isTestnetAddress', () => {
  const body = (n: number) => 'q'.repeat(n);
  it('accepts tb1 addresses of 39 to 59 characters', () => {
    expect(isTestnetAddress(`tb1${body(36)}`)).toBe(true);
    expect(isTestnetAddress(`tb1${body(56)}`)).toBe(true);
    expect(isTestnetAddress('tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx')).toBe(true);
    expect(isTestnetAddress('TB1QW508D6QEJXTDG4Y5R3ZARVARY0C5XW7KXPJZSX')).toBe(true);
  });
  it('refuses 38 and 60 characters, other prefixes, non-bech32 characters and mixed case', () => {
    expect(isTestnetAddress(`tb1${body(35)}`)).toBe(false);
    expect(isTestnetAddress(`tb1${body(57)}`)).toBe(false);
    expect(isTestnetAddress(`bc1${body(40)}`)).toBe(false);
    expect(isTestnetAddress(`tb1${body(39)}b`)).toBe(false);
    expect(isTestnetAddress(`tb1${body(39)}Q`)).toBe(false);
  });
});

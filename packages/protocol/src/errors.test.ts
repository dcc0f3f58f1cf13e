import { describe, expect, it } from 'vitest';
import {
  ERROR_MESSAGES,
  isNoAccountsError,
  isNotFoundError,
  shouldReportError,
  toUserMessage,
} from './errors';

describe('toUserMessage', () => {
  it.each([
    [new Error('Request timed out'), 'Request timed out. Please try again'],
    ['guardian timeout', 'Request timed out. Please try again'],
    [new Error('TIMEOUT waiting'), 'Request timed out. Please try again'],
    ['user timeout', 'Request timed out. Please try again'],
    [new Error('Vault Open failed'), 'Vault Open failed'],
    [{ message: 'No Vault profile' }, 'No Vault profile'],
    [{ error: 'ratio too low', code: 'ratio_too_low' }, 'ratio too low'],
    [new Error(''), 'Unknown error'],
    [undefined, 'Unknown error'],
    [42, 'Unknown error'],
  ])('%o reads %s', (error, expected) => {
    expect(toUserMessage(error)).toBe(expected);
  });
  it('does not report a user timeout but reports other errors', () => {
    expect(shouldReportError(new Error('user timeout'))).toBe(false);
    expect(shouldReportError(new Error('Vault Open failed'))).toBe(true);
  });
});

describe('error kinds', () => {
  it('recognises the no-accounts error that offers a retry by its code, not its text', () => {
    const walletSaid = Object.assign(new Error('Xverse shares no account'), {
      code: 'no_accounts',
    });
    expect(isNoAccountsError(walletSaid)).toBe(true);
    expect(isNoAccountsError(new Error('No accounts found'))).toBe(false);
    expect(isNoAccountsError(new Error('Unknown error'))).toBe(false);
    expect(isNoAccountsError('no_accounts')).toBe(false);
  });
  it('recognises a 404 as not found', () => {
    expect(isNotFoundError({ status: 404 })).toBe(true);
    expect(isNotFoundError({ code: 'not_found', error: 'none' })).toBe(true);
    expect(isNotFoundError({ status: 500 })).toBe(false);
    expect(isNotFoundError(null)).toBe(false);
  });
  it('keeps the catalogue texts exactly', () => {
    expect(ERROR_MESSAGES.noPrice).toBe('Can not fetch bitcoin price');
    expect(ERROR_MESSAGES.maxDepositUtxo).toBe('Cannot get utxo for max deposit amount');
    expect(ERROR_MESSAGES.priceQuote).toBe('Error fetching price quote');
    expect(ERROR_MESSAGES.unexpectedScript).toBe('Unexpected script type');
  });
});

// SPEC §8 error catalogue and the one mapping from a thrown value to what the user reads.
import type { ErrorCode } from './wire/fields';

export const ERROR_MESSAGES = {
  noPrice: 'Can not fetch bitcoin price',
  noVaultProfile: 'No Vault profile',
  userTimeout: 'user timeout',
  generic: 'An error occurred',
  timedOut: 'Request timed out. Please try again',
  vaultOpenFailed: 'Vault Open failed',
  unknown: 'Unknown error',
  maxDepositUtxo: 'Cannot get utxo for max deposit amount',
  priceQuote: 'Error fetching price quote',
  unexpectedScript: 'Unexpected script type',
} as const;

/**
 * The HTTP status of each error code of api.ts: the server's one error type (apps/server/src/
 * errors.ts) answers /api with it. Guardian refusals travel over JSON-RPC (code -32000, data
 * {error, code}); their statuses here are what an HTTP route throwing them would answer.
 */
export const ERROR_HTTP_STATUS = {
  bad_request: 400,
  not_found: 404,
  rate_limited: 429,
  unauthorized: 401,
  forbidden: 403,
  not_configured: 503,
  not_devnet: 403,
  no_price: 503,
  quote_expired: 409,
  below_minimum: 400,
  dust: 400,
  fee_too_low: 400,
  ratio_too_low: 400,
  insufficient_funds: 400,
  bad_signature: 400,
  bad_transaction: 400,
  replayed: 409,
  expired: 400,
  foreign_vault: 403,
  vault_exists: 409,
  vault_busy: 409,
  vault_changed: 409,
  vault_liquidated: 409,
  not_liquidated: 409,
  reservation_missing: 409,
  broadcast_failed: 502,
  chain_unavailable: 503,
  not_replaceable: 409,
  timed_out: 504,
  unreachable: 503,
  guardians_refused: 409,
  internal: 500,
} as const satisfies Record<ErrorCode, number>;

/** The text of any thrown value: an Error's message, a string, or an object's `message`/`error`. */
export function errorMessageOf(error: unknown): string {
  if (error instanceof Error) return error.message;
  if (typeof error === 'string') return error;
  if (error && typeof error === 'object') {
    const { message, error: inner } = error as { message?: unknown; error?: unknown };
    if (typeof message === 'string') return message;
    if (typeof inner === 'string') return inner;
  }
  return '';
}

function isTimeoutText(message: string): boolean {
  const lower = message.toLowerCase();
  return lower.includes('timed out') || lower.includes('timeout');
}

/**
 * SPEC §8: messages with 'timed out' or 'timeout' (the wallet's 'user timeout' among them) become
 * 'Request timed out. Please try again'; an empty message becomes 'Unknown error'; others as they are.
 */
export function toUserMessage(error: unknown): string {
  const message = errorMessageOf(error).trim();
  if (!message) return ERROR_MESSAGES.unknown;
  if (isTimeoutText(message)) return ERROR_MESSAGES.timedOut;
  return message;
}

/** SPEC §8: 'user timeout' is shown as a time-out but not sent to error reporting. */
export function shouldReportError(error: unknown): boolean {
  return errorMessageOf(error).trim().toLowerCase() !== ERROR_MESSAGES.userTimeout;
}

/**
 * SPEC §4, §8: the wallet has no accounts; a Try again button is offered in borrow and repay.
 * Recognised by its code (`no_accounts`, the web's WalletError), never by its text.
 */
export function isNoAccountsError(error: unknown): boolean {
  return (
    !!error && typeof error === 'object' && (error as { code?: unknown }).code === 'no_accounts'
  );
}

/** SPEC §8: a 404 is a distinct not-found case (e.g. no vault yet), not an error banner. */
export function isNotFoundError(error: unknown): boolean {
  if (error && typeof error === 'object') {
    const { status, code } = error as { status?: unknown; code?: unknown };
    if (status === 404 || code === 'not_found') return true;
  }
  return false;
}

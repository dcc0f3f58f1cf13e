// The one error type of a failure the caller should see, on every side: a code of the protocol's
// ErrorCode and a message for people. The server's domain throws it (apps/server/src/errors.ts); the
// JSON-RPC client (wire/rpc-client.ts) rejects with it, so the web app and the tests match by code.
import { ERROR_HTTP_STATUS } from './errors';
import type { ErrorCode } from './wire/fields';

export class DomainError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'DomainError';
  }

  /** The HTTP status /api answers for this code. */
  get status(): number {
    return ERROR_HTTP_STATUS[this.code];
  }
}

/** The code of a DomainError (or of anything carrying one), else null: match by it, never by text. */
export function errorCodeOf(error: unknown): ErrorCode | null {
  if (error instanceof DomainError) return error.code;
  return null;
}

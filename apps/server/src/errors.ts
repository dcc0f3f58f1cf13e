// The server's one error type for a failure the caller should see: a code of the protocol's
// ErrorCode and a message for people. The domain (guardian, oracle, auth, routes) throws it; the
// JSON-RPC transport answers it as a domain error (rpc/json-rpc.ts) and the HTTP error handler with
// the code's status from the protocol's ERROR_HTTP_STATUS (http/errors.ts).
import { ERROR_HTTP_STATUS, type ErrorCode } from '@unit/protocol';

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

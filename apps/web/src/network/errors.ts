// The /network page's words for a read that failed: what happened, in a sentence a user can act
// on, never a bare "Failed to fetch" or "Request failed (502)".
import { toUserMessage } from '@unit/protocol';
import { HttpError } from '../api/http';

/** The read's own time-out (a DOMException, which is not an Error everywhere). */
const isTimeout = (error: unknown) => {
  const name = (error as { name?: unknown } | null)?.name;
  return name === 'TimeoutError' || name === 'AbortError';
};

/** Why the guardian network could not be read, as a user reads it. */
export function networkErrorWords(error: unknown): string {
  if (error instanceof HttpError) {
    // The server's own reason (a set not yet published, or one that does not verify).
    if (error.code) return toUserMessage(error);
    return error.status >= 500
      ? `The server could not answer (error ${error.status}). Try again in a moment.`
      : `The server refused the request (error ${error.status}).`;
  }
  if (isTimeout(error)) return 'The server did not answer in time. Try again in a moment.';
  // fetch's own failure: no answer at all (offline, the server down).
  if (error instanceof TypeError) return 'The server could not be reached. Check your connection.';
  return toUserMessage(error);
}

// The /network page's words for a read that failed: what happened, in a sentence, never a bare
// "Failed to fetch" or "Request failed (502)". What to do is the caller's (a button, or the page's
// own refresh).
import { toUserMessage } from '@unit/protocol';
import { HttpError } from '../api/http';

/** The read's own time-out (a DOMException, which is not an Error everywhere). */
const isTimeout = (error: unknown) => {
  const name = (error as { name?: unknown } | null)?.name;
  return name === 'TimeoutError' || name === 'AbortError';
};

const sentence = (text: string) => (/[.!?]$/.test(text) ? text : `${text}.`);

/** Why the guardian network could not be read, as a user reads it: one sentence. */
export function networkErrorWords(error: unknown): string {
  if (error instanceof HttpError) {
    // The server's own reason (a set not yet published, or one that does not verify).
    if (error.code) return sentence(toUserMessage(error));
    return error.status >= 500
      ? `The server could not answer (error ${error.status}).`
      : `The server refused the request (error ${error.status}).`;
  }
  if (isTimeout(error)) return 'The server did not answer in time.';
  // fetch's own failure: no answer at all (offline, the server down).
  if (error instanceof TypeError) return 'The server could not be reached.';
  return sentence(toUserMessage(error));
}

// A request the guardians refused (`guardians_refused`), in the flow's words.
import { errorCodeOf, errorMessageOf, toUserMessage } from '@unit/protocol';
import { HttpError } from '../api/http';

/** The guardians refused the request (`guardians_refused`): its message names each reason. */
export const isRefusal = (error: unknown) => errorCodeOf(error) === 'guardians_refused';

/** Vault actions are paused (`no_price`: the price is stale), from the guardian or the oracle route. */
export const isPricePaused = (error: unknown) =>
  errorCodeOf(error) === 'no_price' || (error instanceof HttpError && error.code === 'no_price');

/** The toast's short line for a refusal; the tracker and the banner carry its reasons. */
export const REFUSAL_TOAST = 'The guardians refused this request: their reasons are on the page.';

/**
 * A flow's error as the tracker and the banner say it. A refusal is said whole, as the server words
 * it ("2 of 3 guardians refused this request. guardian-2: timed out; guardian-3: ..."): SPEC §8's
 * rule that any text with "timed out" reads as the generic time-out would hide every reason.
 */
export const flowErrorWords = (error: unknown) =>
  (isRefusal(error) && errorMessageOf(error).trim()) || toUserMessage(error);

// Sending a signed vault request again as it is: when the network could not be reached
// and nothing was broadcast, the guardian takes the same signed request once more until its expiry,
// so the user need not sign again. A re-send of a request that did reach the network is refused as
// a replay, so offering one is never unsafe: the guardian decides.
import type { ErrorCode } from './api';

/** The guardian's answers that say the request was never broadcast and may come again unchanged. */
export const RESENDABLE_CODES: readonly ErrorCode[] = ['chain_unavailable'];

/**
 * Whether a signed request may be offered to send again: the guardian answered one of
 * RESENDABLE_CODES, or no answer came at all (`answer` null: the connection was lost or never
 * made, so the request may not have arrived). Any other answer is final for that request.
 */
export function mayResendSigned(answer: { code: string } | null): boolean {
  return answer === null || (RESENDABLE_CODES as readonly string[]).includes(answer.code);
}

/** Whether a request expiring at `expiresAt` (unix seconds) may still be sent at `nowMs`. */
export function resendOpen(expiresAt: number, nowMs: number): boolean {
  return nowMs < expiresAt * 1000;
}

/** What the tracker says when it offers a re-send, and when the signed request has expired. */
export const RESEND_COPY = {
  explain:
    'The network could not be reached, so nothing was sent. Your signed request is kept: send it again as it is, without signing again.',
  until: (time: string) => `It can be sent until ${time}.`,
  button: 'Send again',
  expired:
    'Your signed request has expired, so it can no longer be sent. Start over to sign a new one.',
  startOver: 'Start over',
} as const;

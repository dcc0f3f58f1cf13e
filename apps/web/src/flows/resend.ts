// A signed vault request kept for sending again as it is (@unit/protocol resend.ts). The
// guardian client attaches one to the error of a request the network never took; the tracker's
// "Send again" (ResendButton.tsx) runs the flow with it, which sends the same bytes again over the
// socket that holds its reservation while that socket is open. No Bitcoin library here: this
// module is in the dashboard's first chunk, the client that makes these is loaded lazily.
import { mayResendSigned } from '@unit/protocol';
import type { SignedResend } from './flow-types';

export type { SignedResend } from './flow-types';

const kept = new WeakMap<object, SignedResend>();

/** The guardian's answer an error carries (its code), or null when no answer came. */
const answerOf = (error: unknown): { code: string } | null => {
  const code = error && typeof error === 'object' ? (error as { code?: unknown }).code : undefined;
  return typeof code === 'string' ? { code } : null;
};

/** Keeps `resend` with the error when the error allows sending again; true when kept. */
export function attachResend(error: unknown, resend: SignedResend): boolean {
  if (!error || typeof error !== 'object' || !mayResendSigned(answerOf(error))) return false;
  kept.set(error, resend);
  return true;
}

/** The signed request a failure left to send again, if any. */
export function resendOf(error: unknown): SignedResend | null {
  return error && typeof error === 'object' ? (kept.get(error) ?? null) : null;
}

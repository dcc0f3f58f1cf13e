import { useEffect } from 'react';
import { resendOpen } from '@unit/protocol';
import { useNow } from '../ui/useNow';
import type { FlowState } from './engine';
import { resendOf, type SignedResend } from './resend';

export interface ResendOffer {
  resend: SignedResend;
  /** still before the request's expiry: it may be sent again as it is */
  open: boolean;
  /** the expiry as the user's clock reads it */
  until: string;
}

/**
 * What a failed flow offers to send again (resend.ts): the signed request the failure kept, and
 * whether its expiry still allows it, re-judged every second. Past the expiry the socket kept for it
 * is let go.
 */
export function useResend(flow: FlowState | null): ResendOffer | null {
  const now = useNow(1_000);
  const resend = flow?.status === 'error' ? resendOf(flow.error) : null;
  const open = resend ? resendOpen(resend.expiresAt, now) : false;
  useEffect(() => {
    if (resend && !open) resend.close();
  }, [resend, open]);
  if (!resend) return null;
  const until = new Date(resend.expiresAt * 1000).toLocaleTimeString([], {
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
  });
  return { resend, open, until };
}

import { describe, expect, it } from 'vitest';
import { mayResendSigned, resendOpen } from './resend';

describe('sending a signed request again', () => {
  it('is offered when the network was unreachable or no answer came, never after another answer', () => {
    expect(mayResendSigned({ code: 'chain_unavailable' })).toBe(true);
    expect(mayResendSigned(null)).toBe(true);
    for (const code of [
      'replayed',
      'broadcast_failed',
      'bad_transaction',
      'vault_busy',
      'internal',
    ])
      expect(mayResendSigned({ code })).toBe(false);
  });

  it('is open until the request expires', () => {
    expect(resendOpen(1_000, 999_999)).toBe(true);
    expect(resendOpen(1_000, 1_000_000)).toBe(false);
  });
});

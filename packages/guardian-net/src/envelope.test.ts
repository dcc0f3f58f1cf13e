import { describe, expect, it } from 'vitest';
import {
  MAX_CLOCK_SKEW_MS,
  MAX_MESSAGE_BYTES,
  openMessage,
  ProtocolError,
  sealMessage,
} from './envelope';
import { newIdentity } from './identity';

const coordinator = newIdentity();
const guardian = newIdentity();
const stranger = newIdentity();
const knownSenders = new Set([coordinator.publicKey, guardian.publicKey]);

function seal(
  fields: Partial<Parameters<typeof sealMessage>[0]> = {},
  key = coordinator.secretKey,
) {
  return JSON.stringify(
    sealMessage(
      {
        type: 'sign/propose',
        from: coordinator.publicKey,
        to: guardian.publicKey,
        setVersion: 1,
        body: { a: 1 },
        ...fields,
      },
      key,
    ),
  );
}

function codeOf(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    if (e instanceof ProtocolError) return e.code;
    throw e;
  }
  return 'accepted';
}

describe('signed messages between guardians and the coordinator', () => {
  const open = (raw: string, remember?: (f: string, n: string) => boolean) =>
    openMessage(raw, { self: guardian.publicKey, knownSenders, ...(remember ? { remember } : {}) });

  it('opens a message signed by a member of the set, addressed to this guardian', () => {
    expect(open(seal()).body).toEqual({ a: 1 });
  });

  it('refuses a sender outside the set before checking anything else', () => {
    expect(codeOf(() => open(seal({ from: stranger.publicKey }, stranger.secretKey)))).toBe(
      'sender-not-in-set',
    );
  });

  it('refuses a forged signature and a changed payload', () => {
    expect(codeOf(() => open(seal({}, stranger.secretKey)))).toBe('bad-signature');
    const wire = JSON.parse(seal()) as { payload: string; sig: string };
    const changed = JSON.stringify({ ...wire, payload: wire.payload.replace('"a":1', '"a":2') });
    expect(codeOf(() => open(changed))).toBe('bad-signature');
  });

  it('refuses a message for another receiver, a stale one and a future one', () => {
    expect(codeOf(() => open(seal({ to: coordinator.publicKey })))).toBe('wrong-receiver');
    expect(codeOf(() => open(seal({ ts: Date.now() - MAX_CLOCK_SKEW_MS - 1_000 })))).toBe('stale');
    expect(codeOf(() => open(seal({ ts: Date.now() + MAX_CLOCK_SKEW_MS + 1_000 })))).toBe('stale');
  });

  it('refuses a replay, and records a nonce only once the signature holds', () => {
    const seen = new Set<string>();
    const remember = (from: string, nonce: string) => {
      const k = `${from}:${nonce}`;
      if (seen.has(k)) return false;
      seen.add(k);
      return true;
    };
    const raw = seal();
    expect(codeOf(() => open(raw, remember))).toBe('accepted');
    expect(codeOf(() => open(raw, remember))).toBe('replayed');
    expect(codeOf(() => open(seal({}, stranger.secretKey), remember))).toBe('bad-signature');
    expect(seen.size).toBe(1);
  });

  it('refuses an oversized or malformed body', () => {
    expect(codeOf(() => open('x'.repeat(MAX_MESSAGE_BYTES + 1)))).toBe('too-large');
    expect(codeOf(() => open('{"payload": 1}'))).toBe('malformed');
    expect(codeOf(() => open(seal({ nonce: 'zz' })))).toBe('malformed');
  });
});

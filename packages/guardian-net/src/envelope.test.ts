import { describe, expect, it } from 'vitest';
import {
  MAX_CLOCK_SKEW_MS,
  MAX_MESSAGE_BYTES,
  openEnvelope,
  openMessage,
  ProtocolError,
  sealMessage,
  type Wire,
} from './envelope';
import { newIdentity } from './identity';
import { macOf, pairwiseKey } from './pairwise-mac';

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

describe('messages authenticated by a MAC under the pair’s key', () => {
  const other = newIdentity();
  const senders = new Set([coordinator.publicKey, guardian.publicKey, other.publicKey]);
  const fields = {
    type: 'sign/share',
    from: coordinator.publicKey,
    to: guardian.publicKey,
    setVersion: 1,
    body: { a: 1 },
  };
  const open = (
    wire: Wire,
    self = guardian,
    remember?: (f: string, n: string) => boolean,
  ): string => {
    try {
      const opened = openEnvelope(JSON.stringify(wire), {
        self: self.publicKey,
        secretKey: self.secretKey,
        knownSenders: senders,
        ...(remember ? { remember } : {}),
      });
      return `${opened.auth}:${JSON.stringify(opened.payload.body)}`;
    } catch (e) {
      if (e instanceof ProtocolError) return e.code;
      throw e;
    }
  };

  it('opens a MAC’d message from a member of the set, and says it came MAC’d', () => {
    const wire = sealMessage(fields, coordinator.secretKey, 'mac');
    expect(Object.keys(wire).sort()).toEqual(['mac', 'payload']);
    expect(open(wire)).toBe('mac:{"a":1}');
    expect(open(sealMessage(fields, coordinator.secretKey))).toBe('sig:{"a":1}');
  });

  it('both parties derive the same key for a direction, and the two directions differ', () => {
    const there = pairwiseKey(coordinator.secretKey, coordinator.publicKey, guardian.publicKey);
    expect(pairwiseKey(guardian.secretKey, coordinator.publicKey, guardian.publicKey)).toEqual(
      there,
    );
    const back = pairwiseKey(guardian.secretKey, guardian.publicKey, coordinator.publicKey);
    expect(back).not.toEqual(there);
    // The same payload MAC'd under the other direction's key does not pass.
    const payload = sealMessage(fields, coordinator.secretKey, 'mac').payload;
    expect(open({ payload, mac: macOf(back, payload) })).toBe('bad-signature');
  });

  it('refuses a MAC under another pair’s key, a changed payload and a MAC that is not hex', () => {
    // The other member knows its own key with the guardian, not the coordinator's.
    const payload = sealMessage(fields, coordinator.secretKey, 'mac').payload;
    const forged = macOf(
      pairwiseKey(other.secretKey, other.publicKey, guardian.publicKey),
      payload,
    );
    expect(open({ payload, mac: forged })).toBe('bad-signature');
    const wire = sealMessage(fields, coordinator.secretKey, 'mac');
    expect(open({ ...wire, payload: wire.payload.replace('"a":1', '"a":2') })).toBe(
      'bad-signature',
    );
    expect(open({ ...wire, mac: 'zz'.repeat(32) })).toBe('bad-signature');
    expect(open({ ...wire, mac: wire.mac!.slice(2) })).toBe('bad-signature');
  });

  it('a receiver without its secret key accepts no MAC, and a wire with both or neither is malformed', () => {
    const wire = sealMessage(fields, coordinator.secretKey, 'mac');
    expect(() =>
      openMessage(JSON.stringify(wire), { self: guardian.publicKey, knownSenders: senders }),
    ).toThrow(/MAC does not verify/);
    const signed = sealMessage(fields, coordinator.secretKey);
    expect(open({ ...signed, mac: wire.mac! })).toBe('malformed');
    expect(open({ payload: wire.payload } as Wire)).toBe('malformed');
  });

  it('keeps the envelope’s other refusals: out of set, wrong receiver, stale, replayed', () => {
    const stranger = newIdentity();
    const fromStranger = sealMessage(
      { ...fields, from: stranger.publicKey, to: guardian.publicKey },
      stranger.secretKey,
      'mac',
    );
    expect(open(fromStranger)).toBe('sender-not-in-set');
    expect(
      open(sealMessage({ ...fields, to: other.publicKey }, coordinator.secretKey, 'mac')),
    ).toBe('wrong-receiver');
    const stale = { ...fields, ts: Date.now() - MAX_CLOCK_SKEW_MS - 1_000 };
    expect(open(sealMessage(stale, coordinator.secretKey, 'mac'))).toBe('stale');
    const seen = new Set<string>();
    const remember = (from: string, nonce: string) => !seen.has(nonce) && !!seen.add(nonce);
    const wire = sealMessage(fields, coordinator.secretKey, 'mac');
    expect(open({ ...wire, mac: '00'.repeat(32) }, guardian, remember)).toBe('bad-signature');
    expect(seen.size).toBe(0);
    expect(open(wire, guardian, remember)).toBe('mac:{"a":1}');
    expect(open(wire, guardian, remember)).toBe('replayed');
  });
});

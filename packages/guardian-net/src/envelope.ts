// The message protocol between guardians and the coordinator (docs/guardian-network.md): every
// message is a JSON payload authenticated as its sender's, addressed to one receiver, stamped with
// a time and a random nonce. It is signed by the sender's identity key (BIP-340: anyone can check
// it), or, for the co-signing rounds, carries a MAC under the pair's key (pairwise-mac.ts: only the
// receiver can check it, at a hundredth of the cost). The receiver refuses, in this order (cheapest
// first, nothing stored before the authentication holds): an oversized body, a malformed one, a
// sender outside the published set, a message for someone else, a stale or future stamp, a bad
// signature or MAC, a nonce it has already seen.
import { schnorr } from '@noble/curves/secp256k1.js';
import { randomBytes } from '@noble/hashes/utils.js';
import { bytesToHex, parseHex, taggedDigest, utf8ToBytes } from './canonical';
import { macHolds, macOf, pairwiseKey } from './pairwise-mac';

export const MESSAGE_TAG = 'unit/guardian-message';
/** A signing request is a few hundred bytes and a DKG package under 2 KB; 64 KiB is plenty. */
export const MAX_MESSAGE_BYTES = 64 * 1024;
/** How far a stamp may be from the receiver's clock; a seen nonce is kept at least twice as long. */
export const MAX_CLOCK_SKEW_MS = 30_000;

export type ErrorCode =
  | 'too-large'
  | 'bad-certificate'
  | 'malformed'
  | 'sender-not-in-set'
  | 'wrong-receiver'
  | 'stale'
  | 'bad-signature'
  | 'replayed'
  | 'not-allowed'
  | 'refused'
  | 'unknown-session'
  | 'nonce-unavailable'
  | 'not-ready'
  | 'no-price'
  | 'internal';

/** A refusal with a code the other side can act on and a sentence an operator can read. */
export class ProtocolError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly status = 400,
  ) {
    super(message);
  }
}

export interface Payload {
  v: 1;
  type: string;
  /** sender identity key, x-only hex */
  from: string;
  /** receiver identity key, x-only hex */
  to: string;
  /** guardian set version the sender works with */
  setVersion: number;
  ts: number;
  nonce: string;
  /** on a reply: the request's nonce */
  re?: string;
  body: unknown;
}

/** A BIP-340 signature (`sig`) or a MAC under the pair's key (`mac`): exactly one of them. */
export interface Wire {
  payload: string;
  sig?: string;
  mac?: string;
}

/** How a message is authenticated: `sig` for anything a third party may have to check. */
export type Auth = 'sig' | 'mac';

export function sealMessage(
  fields: Omit<Payload, 'v' | 'ts' | 'nonce'> & { ts?: number; nonce?: string },
  secretKey: Uint8Array,
  auth: Auth = 'sig',
): Wire {
  const payload: Payload = {
    v: 1,
    type: fields.type,
    from: fields.from,
    to: fields.to,
    setVersion: fields.setVersion,
    ts: fields.ts ?? Date.now(),
    nonce: fields.nonce ?? bytesToHex(randomBytes(16)),
    ...(fields.re === undefined ? {} : { re: fields.re }),
    body: fields.body,
  };
  const text = JSON.stringify(payload);
  if (auth === 'mac')
    return { payload: text, mac: macOf(pairwiseKey(secretKey, payload.from, payload.to), text) };
  return {
    payload: text,
    sig: bytesToHex(schnorr.sign(taggedDigest(MESSAGE_TAG, utf8ToBytes(text)), secretKey)),
  };
}

/** Whether the wire's authentication is `from`'s: its signature, or its MAC to `self`. */
export function authenticates(
  wire: Wire,
  from: string,
  self: { publicKey: string; secretKey?: Uint8Array },
): boolean {
  try {
    if (wire.mac !== undefined)
      return (
        typeof wire.mac === 'string' &&
        self.secretKey !== undefined &&
        macHolds(pairwiseKey(self.secretKey, from, self.publicKey), wire.payload, wire.mac)
      );
    if (typeof wire.sig !== 'string') return false;
    return schnorr.verify(
      parseHex(wire.sig, 64),
      taggedDigest(MESSAGE_TAG, utf8ToBytes(wire.payload)),
      parseHex(from, 32),
    );
  } catch {
    return false;
  }
}

export interface OpenOptions {
  /** the receiver's own identity key */
  self: string;
  /** the receiver's secret key, to check a MAC; without it only signed messages are accepted */
  secretKey?: Uint8Array;
  /** identity keys allowed to send to this receiver; anything else is refused */
  knownSenders: ReadonlySet<string>;
  now?: number;
  /** records (sender, nonce); false when already seen. Called only once the signature holds. */
  remember?: (from: string, nonce: string, ts: number) => boolean;
}

/** Checks a raw body from the network; returns the payload or throws a ProtocolError. */
export function openMessage(raw: string, opts: OpenOptions): Payload {
  return openEnvelope(raw, opts).payload;
}

/** As openMessage, with how the message was authenticated (a reply is sealed the same way). */
export function openEnvelope(raw: string, opts: OpenOptions): { payload: Payload; auth: Auth } {
  if (Buffer.byteLength(raw) > MAX_MESSAGE_BYTES)
    throw new ProtocolError('too-large', `message over ${MAX_MESSAGE_BYTES} bytes`, 413);
  let wire: Wire;
  let payload: Payload;
  try {
    wire = JSON.parse(raw) as Wire;
    if (
      typeof wire.payload !== 'string' ||
      (typeof wire.sig === 'string') === (typeof wire.mac === 'string')
    )
      throw new Error();
    payload = JSON.parse(wire.payload) as Payload;
  } catch {
    throw new ProtocolError('malformed', 'message is not a signed envelope');
  }
  if (
    payload === null ||
    typeof payload !== 'object' ||
    payload.v !== 1 ||
    typeof payload.type !== 'string' ||
    typeof payload.from !== 'string' ||
    typeof payload.to !== 'string' ||
    typeof payload.ts !== 'number' ||
    typeof payload.setVersion !== 'number' ||
    typeof payload.nonce !== 'string' ||
    !/^[0-9a-f]{32}$/.test(payload.nonce)
  )
    throw new ProtocolError('malformed', 'message payload is malformed');
  if (!opts.knownSenders.has(payload.from))
    throw new ProtocolError(
      'sender-not-in-set',
      `sender ${payload.from.slice(0, 16)}… is not in the published guardian set`,
      403,
    );
  if (payload.to !== opts.self)
    throw new ProtocolError('wrong-receiver', 'message is addressed to another party', 403);
  const now = opts.now ?? Date.now();
  if (Math.abs(now - payload.ts) > MAX_CLOCK_SKEW_MS)
    throw new ProtocolError('stale', 'message stamp is too old or in the future', 401);
  const auth: Auth = typeof wire.mac === 'string' ? 'mac' : 'sig';
  const self = { publicKey: opts.self, ...(opts.secretKey ? { secretKey: opts.secretKey } : {}) };
  if (!authenticates(wire, payload.from, self))
    throw new ProtocolError(
      'bad-signature',
      auth === 'mac' ? 'message MAC does not verify' : 'message signature does not verify',
      401,
    );
  if (opts.remember && !opts.remember(payload.from, payload.nonce, payload.ts))
    throw new ProtocolError('replayed', 'message nonce was already used', 409);
  return { payload, auth };
}

// Loopback (or any) HTTP between parties: one POST endpoint for signed messages, with a body cap
// enforced while reading, and a client whose every call has a time-out and checks the signed reply.
import type { IncomingMessage } from 'node:http';
import { schnorr } from '@noble/curves/secp256k1.js';
import {
  MAX_MESSAGE_BYTES,
  MESSAGE_TAG,
  ProtocolError,
  sealMessage,
  type Payload,
  type Wire,
} from './envelope';
import { parseHex, taggedDigest, utf8ToBytes } from './canonical';
import type { Identity } from './identity';

export const MESSAGE_PATH = '/v1/message';
export const DEFAULT_TIMEOUT_MS = 5_000;

/** Reads a request body, refusing it as soon as it passes the cap (before parsing anything). */
export function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const declared = Number(req.headers['content-length'] ?? 0);
    if (declared > MAX_MESSAGE_BYTES) {
      reject(new ProtocolError('too-large', `message over ${MAX_MESSAGE_BYTES} bytes`, 413));
      req.resume();
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_MESSAGE_BYTES) {
        reject(new ProtocolError('too-large', `message over ${MAX_MESSAGE_BYTES} bytes`, 413));
        req.destroy();
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

/** A signed reply, checked against who we asked and what we asked. */
export function checkReply(wire: Wire, expectedFrom: string, requestNonce?: string): Payload {
  let payload: Payload;
  try {
    payload = JSON.parse(wire.payload) as Payload;
  } catch {
    throw new ProtocolError('malformed', 'reply is not a signed envelope');
  }
  if (payload?.from !== expectedFrom)
    throw new ProtocolError('bad-signature', 'reply comes from another party');
  if (requestNonce !== undefined && payload.re !== requestNonce)
    throw new ProtocolError('replayed', 'reply answers another request');
  let ok = false;
  try {
    ok = schnorr.verify(
      parseHex(wire.sig, 64),
      taggedDigest(MESSAGE_TAG, utf8ToBytes(wire.payload)),
      parseHex(expectedFrom, 32),
    );
  } catch {
    ok = false;
  }
  if (!ok) throw new ProtocolError('bad-signature', 'reply signature does not verify');
  return payload;
}

/** A refusal from the other side, with its code and sentence. */
export class RemoteError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export interface CallResult {
  payload: Payload;
  wire: Wire;
}

/** Sends one signed message and returns the receiver's checked, signed reply. */
export async function callParty(opts: {
  url: string;
  identity: Identity;
  to: string;
  setVersion: number;
  type: string;
  body: unknown;
  timeoutMs?: number;
}): Promise<CallResult> {
  const request = sealMessage(
    {
      type: opts.type,
      from: opts.identity.publicKey,
      to: opts.to,
      setVersion: opts.setVersion,
      body: opts.body,
    },
    opts.identity.secretKey,
  );
  const requestNonce = (JSON.parse(request.payload) as Payload).nonce;
  const res = await fetch(opts.url + MESSAGE_PATH, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(request),
    signal: AbortSignal.timeout(opts.timeoutMs ?? DEFAULT_TIMEOUT_MS),
  });
  const text = await res.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new RemoteError('malformed', `non-JSON answer (HTTP ${res.status})`);
  }
  const err = (json as { error?: { code?: unknown; message?: unknown } }).error;
  if (err) throw new RemoteError(String(err.code), String(err.message));
  const wire = json as Wire;
  return { payload: checkReply(wire, opts.to, requestNonce), wire };
}

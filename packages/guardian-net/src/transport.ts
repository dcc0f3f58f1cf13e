// HTTP between parties (TLS 1.3 bound to identity keys over https, tls-link.ts): one POST endpoint for signed messages, with a body cap
// enforced while reading, and a client whose every call has a time-out and checks the reply, which
// comes authenticated as the request was (a signature, or a MAC under the pair's key).
import type { IncomingMessage } from 'node:http';
import {
  authenticates,
  MAX_MESSAGE_BYTES,
  ProtocolError,
  sealMessage,
  type Auth,
  type Payload,
  type Wire,
} from './envelope';
import { postJson } from './http-post';
import type { Identity } from './identity';
import { parseMessageAnswer, type MessageAnswer, type MessageType } from './messages';
import { linkCredentials } from './tls-link';

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

/**
 * A reply, checked against who we asked and what we asked. Without `self` it must be signed (a
 * DKG round-1 package relayed by the coordinator is checked by a third party); with `self`, the
 * party that asked, a MAC under the pair's key is accepted too.
 */
export function checkReply(
  wire: Wire,
  expectedFrom: string,
  requestNonce?: string,
  self?: Identity,
): Payload {
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
  if (!authenticates(wire, expectedFrom, self ?? { publicKey: '' }))
    throw new ProtocolError('bad-signature', 'reply signature or MAC does not verify');
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

export interface CallResult<T extends MessageType = MessageType> {
  /** the reply's payload, its body parsed by the answer's schema (messages.ts) */
  payload: Omit<Payload, 'body'> & { body: MessageAnswer<T> };
  wire: Wire;
}

/** Sends one signed message and returns the receiver's checked, signed reply. */
export async function callParty<T extends MessageType>(opts: {
  url: string;
  identity: Identity;
  to: string;
  setVersion: number;
  type: T;
  body: unknown;
  timeoutMs?: number;
  /** `mac` for the co-signing rounds (only the two parties check them), else signed */
  auth?: Auth;
  /** the request already sealed (a message the sender also hands a third party), signed */
  sealed?: Wire;
}): Promise<CallResult<T>> {
  const request =
    opts.sealed ??
    sealMessage(
      {
        type: opts.type,
        from: opts.identity.publicKey,
        to: opts.to,
        setVersion: opts.setVersion,
        body: opts.body,
      },
      opts.identity.secretKey,
      opts.auth ?? 'sig',
    );
  const requestNonce = (JSON.parse(request.payload) as Payload).nonce;
  // Over https the caller presents its certificate, bound to the identity that signs the message.
  const credentials = opts.url.startsWith('https:')
    ? await linkCredentials(opts.identity)
    : undefined;
  const res = await postJson(
    opts.url + MESSAGE_PATH,
    JSON.stringify(request),
    opts.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    { credentials, expect: opts.to },
  );
  const text = res.text;
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new RemoteError('malformed', `non-JSON answer (HTTP ${res.status})`);
  }
  const err = (json as { error?: { code?: unknown; message?: unknown } }).error;
  if (err) throw new RemoteError(String(err.code), String(err.message));
  const wire = json as Wire;
  // A reply to a MAC'd request must come MAC'd, to a signed one signed: the same as asked.
  if ((typeof wire?.mac === 'string') !== (opts.auth === 'mac'))
    throw new ProtocolError('bad-signature', 'reply is not authenticated as the request was');
  const payload = checkReply(wire, opts.to, requestNonce, opts.identity);
  // Read at the edge, once its sender is proven: what the caller gets is the answer's shape.
  return { payload: { ...payload, body: parseMessageAnswer(opts.type, payload.body) }, wire };
}

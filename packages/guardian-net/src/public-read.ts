// A public GET of a party of the set (its health, signed price, oracle statement or secret), over
// the same checked link as its messages: over https the server's certificate must be bound to the
// identity key the set lists for that member (tls-link.ts), so an answer never comes from another
// machine and nothing of it crosses the wire in clear. Every read has a time-out and a size cap.
import { getJson } from './http-post';

/** Who is read: the member's URL and the identity key its certificate must be bound to. */
export interface PublicTarget {
  url: string;
  identityKey: string;
}

/** A guardian's /v1/health is well under a kilobyte; ample room, still bounded. */
export const HEALTH_MAX_BYTES = 16 * 1024;

export interface PublicReadOptions {
  timeoutMs: number;
  maxBytes: number;
  /** ends the read early (a fan-out's deadline or grace), with the signal's reason */
  signal?: AbortSignal;
}

/** A public answer: its HTTP status and its body parsed as JSON (null when it is not JSON). */
export interface PublicAnswer {
  status: number;
  ok: boolean;
  body: unknown;
}

/** GET `path` (with its query) of `target`, pinned to its identity key over https. */
export async function readPublic(
  target: PublicTarget,
  path: string,
  options: PublicReadOptions,
): Promise<PublicAnswer> {
  const { status, text } = await getJson(
    target.url + path,
    options.timeoutMs,
    { expect: target.identityKey.toLowerCase() },
    { maxBytes: options.maxBytes, ...(options.signal ? { signal: options.signal } : {}) },
  );
  let body: unknown = null;
  try {
    body = JSON.parse(text);
  } catch {
    body = null;
  }
  return { status, ok: status >= 200 && status < 300, body };
}

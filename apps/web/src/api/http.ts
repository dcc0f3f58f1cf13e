import { takeFirstAnswer } from './first-data';

// The one HTTP edge of the web app: JSON in, typed errors out. SPEC §8: a 404 is a distinct
// not-found case, so callers can tell "no vault" from a failure.
export class HttpError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly code: string | null,
  ) {
    super(message);
    this.name = 'HttpError';
  }
}

/** The code of an answer that is not JSON, or not in the shape its route promises. */
export const MALFORMED_ANSWER = 'malformed_answer';

export const isNotFound = (error: unknown) => error instanceof HttpError && error.status === 404;

export async function getJson<T>(url: string, init?: RequestInit): Promise<T> {
  // The page may carry this GET's answer (first-data.ts): no round trip for it.
  const first = init?.method == null || init.method === 'GET' ? takeFirstAnswer(url) : null;
  if (first) return first.body as T;
  return (await fetchJson(url, init)).body as T;
}

/** One request: its status and JSON answer (null for 204), or HttpError saying what failed. */
export async function fetchJson(
  url: string,
  init?: RequestInit,
): Promise<{ status: number; body: unknown }> {
  // Resolved against the page so relative config URLs work in every fetch implementation.
  const res = await fetch(new URL(url, window.location.href), init);
  if (!res.ok) {
    let message = `Request failed (${res.status})`;
    let code: string | null = null;
    try {
      const body = (await res.json()) as { error?: unknown; code?: unknown };
      // Only this server's shape: another answer (a proxy's) keeps the status message.
      if (typeof body.error === 'string' && body.error) message = body.error;
      code = typeof body.code === 'string' ? body.code : null;
    } catch {
      // a body that is not JSON keeps the status message
    }
    throw new HttpError(message, res.status, code);
  }
  if (res.status === 204) return { status: res.status, body: null };
  try {
    return { status: res.status, body: await res.json() };
  } catch {
    throw new HttpError(
      `The server's answer to ${url} was not readable. Reload the page; if it happens again, try again in a few minutes.`,
      res.status,
      MALFORMED_ANSWER,
    );
  }
}

/** Joins a configured base URL (absolute or relative to the origin) and a path. */
export const joinUrl = (base: string, path: string) =>
  `${base.replace(/\/+$/, '')}/${path.replace(/^\/+/, '')}`;

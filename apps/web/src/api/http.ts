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

export const isNotFound = (error: unknown) => error instanceof HttpError && error.status === 404;

export async function getJson<T>(url: string, init?: RequestInit): Promise<T> {
  // The page may carry this GET's answer (first-data.ts): no round trip for it.
  const first = init?.method == null || init.method === 'GET' ? takeFirstAnswer(url) : null;
  if (first) return first.body as T;
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
  return (await res.json()) as T;
}

/** Joins a configured base URL (absolute or relative to the origin) and a path. */
export const joinUrl = (base: string, path: string) =>
  `${base.replace(/\/+$/, '')}/${path.replace(/^\/+/, '')}`;

// What an operator reads when a chain service fails: which service (its setting and host), the
// cause (the system's error code, the time-out, or the HTTP status) and the next step. Only the
// host is named, never the whole base URL: a base may carry an API key in its path or query.
import { ChainUnavailableError } from './port';

/** A chain service as the configuration names it. */
export interface ChainService {
  /** esplora, mempool, ordinals, runes or ord */
  name: string;
  /** The environment setting that points at it: ESPLORA_URL, MEMPOOL_URL, ... */
  setting: string;
  /** Its base URL (only the host is ever printed). */
  base: string;
}

/** The configured esplora, for the reads that go around the Chain port. */
export const esploraService = (base: string): ChainService => ({
  name: 'esplora',
  setting: 'ESPLORA_URL',
  base: base.replace(/\/+$/, ''),
});

/** The system's words for the connection failures an operator meets. */
const CODES: Record<string, string> = {
  ENOTFOUND: 'the host name does not resolve',
  EAI_AGAIN: 'the host name could not be resolved right now',
  ECONNREFUSED: 'nothing listens on that port',
  ECONNRESET: 'the connection was reset',
  EHOSTUNREACH: 'the host is unreachable',
  ENETUNREACH: 'the network is unreachable',
  ETIMEDOUT: 'the connection timed out',
  UND_ERR_SOCKET: 'the connection closed before an answer',
  UND_ERR_CONNECT_TIMEOUT: 'the connection timed out',
  CERT_HAS_EXPIRED: 'its TLS certificate has expired',
  DEPTH_ZERO_SELF_SIGNED_CERT: 'its TLS certificate is self-signed',
};

const hostOf = (base: string): string => {
  try {
    return new URL(base).host;
  } catch {
    return '(an unparsable URL)';
  }
};

/** The cause of a fetch that threw: `ENOTFOUND (the host name does not resolve)`, a time-out, ... */
export function failureCause(error: unknown, timeoutMs: number): string {
  if (error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError'))
    return `timed out after ${timeoutMs} ms`;
  // undici's "fetch failed" carries the system error as its cause (sometimes one level deeper).
  let inner: unknown = error;
  let deepest = error instanceof Error ? error.message : String(error);
  for (let depth = 0; depth < 3 && inner instanceof Error; depth++) {
    const code = (inner as { code?: unknown }).code;
    if (typeof code === 'string') return CODES[code] ? `${code} (${CODES[code]})` : code;
    deepest = inner.message;
    inner = inner.cause;
  }
  // No system code (fetch's own refusals, e.g. "bad port"): the innermost words there are.
  return deepest;
}

/** The service did not answer at all (`cause` from failureCause). */
export function unreachable(
  service: ChainService,
  route: string,
  cause: string,
): ChainUnavailableError {
  const host = hostOf(service.base);
  return new ChainUnavailableError(
    `${service.name} at ${host} (${service.setting}) could not be reached for ${route}: ${cause}. ` +
      `Check ${service.setting} and that this machine reaches ${host}, then try again.`,
  );
}

/** The service answered with its own failure (5xx, 429). */
export function failing(
  service: ChainService,
  route: string,
  status: number,
): ChainUnavailableError {
  const host = hostOf(service.base);
  const cause =
    status === 429 ? 'HTTP 429, too many requests' : `HTTP ${status}, a failure on its side`;
  return new ChainUnavailableError(
    `${service.name} at ${host} (${service.setting}) answered ${route} with ${cause}. ` +
      (status === 429
        ? `Wait a minute and try again, or point ${service.setting} at an instance that allows more requests.`
        : `Try again in a minute; if it persists, check the service or point ${service.setting} at another instance.`),
  );
}

/** The service answered, but not with what was asked (a 4xx): its words, for the operator. */
export function answeredWith(
  service: ChainService,
  route: string,
  status: number,
  body = '',
): string {
  const said = body.trim().slice(0, 200);
  return `${service.name} at ${hostOf(service.base)} (${service.setting}) answered ${route} with HTTP ${status}${said ? `: ${said}` : ''}`;
}

/**
 * A fetch bounded by `timeoutMs` whose failures name the service, its host and the cause, for the
 * operator's reads that go around the Chain port (a block's txids, reindex).
 */
export function serviceFetch(service: ChainService, timeoutMs: number): typeof fetch {
  return async (input, init) => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    const route = url.startsWith(service.base)
      ? url.slice(service.base.length) || '/'
      : new URL(url).pathname;
    let response: Response;
    try {
      response = await fetch(input, { ...init, signal: AbortSignal.timeout(timeoutMs) });
    } catch (error) {
      throw unreachable(service, route, failureCause(error, timeoutMs));
    }
    if (response.status >= 500 || response.status === 429)
      throw failing(service, route, response.status);
    return response;
  };
}

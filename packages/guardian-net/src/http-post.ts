// One JSON POST to another party over node:http(s), with keep-alive sockets: what `fetch` did for
// callParty, at a fraction of its CPU (undici's request and stream objects cost ~0.4 ms a call on
// loopback, node:http ~0.1 ms, and the co-signing rounds make five calls a signing). It fails as
// fetch did, so callers' reasons read the same: a time-out is an error named TimeoutError, an
// unreachable party a TypeError whose `cause` carries the socket's code (ECONNREFUSED, ...).
import http from 'node:http';
import https from 'node:https';
import { pinnedAgent, type LinkTls } from './tls-link';

/**
 * Idle sockets are kept (unref'd, so they hold no process open), and closed after 4 s idle: before
 * a guardian's server closes them (node's keep-alive time-out, 5 s), which a request could race.
 */
const IDLE_MS = 4_000;
const agents = {
  'http:': new http.Agent({ keepAlive: true, timeout: IDLE_MS }),
  'https:': new https.Agent({ keepAlive: true, timeout: IDLE_MS }),
};

class TimeoutError extends Error {
  override name = 'TimeoutError';
}

/**
 * A kept-alive socket the other side closed can still be in the pool when a request takes it (a
 * bench run under load lost all three guardians so after a 12 s pause, with two dead sockets
 * pooled per guardian), and the request then fails at once with ECONNRESET or EPIPE before any
 * answer: sent once more on a new connection of its own, as node's documentation advises. The
 * receiver refuses a message it already accepted (`409 replayed`), so a retry is never acted on
 * twice.
 */
const STALE_SOCKET = new Set(['ECONNRESET', 'EPIPE']);

/** The reply's status and text; the whole exchange, reply body included, within `timeoutMs`. */
export async function postJson(
  url: string,
  body: string,
  timeoutMs: number,
  tls?: LinkTls,
): Promise<{ status: number; text: string }> {
  const started = Date.now();
  try {
    return await postOnce(url, body, timeoutMs, true, tls);
  } catch (e) {
    if (!(e instanceof StaleSocket)) throw e;
    return postOnce(url, body, Math.max(1, timeoutMs - (Date.now() - started)), false, tls);
  }
}

/** A reused socket that failed before any answer (STALE_SOCKET). */
class StaleSocket extends TypeError {}

/** One GET of a public route (its status and text), within `timeoutMs`, over a checked link. */
export function getJson(
  url: string,
  timeoutMs: number,
  tls?: LinkTls,
): Promise<{ status: number; text: string }> {
  return postOnce(url, undefined, timeoutMs, true, tls);
}

function postOnce(
  url: string,
  body: string | undefined,
  timeoutMs: number,
  pooled: boolean,
  tls: LinkTls | undefined,
): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const target = new URL(url);
    const https_ = target.protocol === 'https:';
    // Over https the server's certificate must be bound to the party called (tls-link.ts); a
    // fresh connection for a retry is an agent of its own, checked the same way.
    const pool = https_ && tls ? pinnedAgent(tls) : agents[target.protocol as keyof typeof agents];
    const agent = pooled ? pool : https_ && tls ? pinnedAgent(tls, false) : false;
    if (!pool) {
      reject(new TypeError(`unsupported protocol ${target.protocol}`));
      return;
    }
    const send = target.protocol === 'https:' ? https.request : http.request;
    let settled = false;
    const fail = (error: Error) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      req.destroy();
      reject(error);
    };
    const req = send(
      target,
      {
        method: body === undefined ? 'GET' : 'POST',
        agent,
        headers:
          body === undefined
            ? {}
            : { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('error', (e) => fail(new TypeError('fetch failed', { cause: e })));
        res.on('end', () => {
          if (settled) return;
          settled = true;
          clearTimeout(timer);
          resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') });
        });
      },
    );
    const timer = setTimeout(
      () => fail(new TimeoutError('The operation was aborted due to timeout')),
      timeoutMs,
    );
    let answered = false;
    req.on('response', () => (answered = true));
    req.on('error', (e: Error & { code?: string }) => {
      const stale = req.reusedSocket && !answered && STALE_SOCKET.has(e.code ?? '');
      fail(new (stale ? StaleSocket : TypeError)('fetch failed', { cause: e }));
    });
    req.end(body);
  });
}

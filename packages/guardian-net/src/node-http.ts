// A guardian's HTTP routes: the public ones, rate-limited per address (public-routes.ts: its
// health, the oracle's and price routes, the published set), and the one POST endpoint for signed
// messages (node.ts handles them).
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import type { TLSSocket } from 'node:tls';
import { ProtocolError, type Wire } from './envelope';
import type { Identity } from './identity';
import type { PublicRoutes } from './public-routes';
import { clientIdentity, linkCredentials, serverTlsOptions, TlsPeerError } from './tls-link';
import { MESSAGE_PATH, readBody } from './transport';

export interface GuardianRoutes {
  publicRoutes: PublicRoutes;
  handle: (raw: string) => Promise<Wire>;
  log: (event: Record<string, unknown>) => void;
}

export function routeGuardian(
  req: IncomingMessage,
  res: ServerResponse,
  node: GuardianRoutes,
): void {
  const send = (status: number, json: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(json));
  };
  if (node.publicRoutes.handle(req, res, send)) return;
  if (req.method !== 'POST' || req.url !== MESSAGE_PATH)
    return send(404, { error: { code: 'malformed', message: 'no such endpoint' } });
  readBody(req)
    .then((raw) => node.handle(senderOverLink(req, raw)))
    .then((wire) => send(200, wire))
    .catch((e: unknown) => {
      const err =
        e instanceof ProtocolError ? e : new ProtocolError('internal', 'internal error', 500);
      if (!(e instanceof ProtocolError))
        node.log({ event: 'error', message: (e as Error).message });
      else node.log({ event: 'refused', code: err.code, message: err.message });
      if (!res.headersSent) {
        res.setHeader('connection', 'close');
        send(err.status, { error: { code: err.code, message: err.message } });
      }
    });
}

/**
 * Over TLS, a signed message must come on a connection whose client certificate is bound to the
 * message's own sender: the link authenticates the party, the envelope what it said. (The sender's
 * place in the set is then checked by the envelope's checks, node.ts.)
 */
function senderOverLink(req: IncomingMessage, raw: string): string {
  const socket = req.socket as TLSSocket;
  if (!socket.encrypted) return raw;
  let peer: string;
  try {
    peer = clientIdentity(socket);
  } catch (e) {
    if (e instanceof TlsPeerError) throw new ProtocolError('bad-certificate', e.message, 403);
    throw e;
  }
  let from: unknown;
  try {
    from = (JSON.parse((JSON.parse(raw) as { payload: string }).payload) as { from?: unknown })
      .from;
  } catch {
    throw new ProtocolError('malformed', 'message is not a signed envelope');
  }
  if (typeof from !== 'string')
    throw new ProtocolError('malformed', 'message is not a signed envelope');
  if (from !== peer)
    throw new ProtocolError('bad-certificate', 'The message’s sender is not the party whose TLS certificate this connection presented; each party sends only its own messages.', 403); // prettier-ignore
  return raw;
}

/** The port a guardian listens on: its own URL's (from its set, roster or public part). */
export function portOf(url: string | undefined): number {
  if (!url) throw new Error('no port: give --port, or init the directory with its --url');
  const u = new URL(url);
  return Number(u.port || (u.protocol === 'https:' ? 443 : 80));
}

export const INSECURE_PLAIN_HTTP_FLAG = '--insecure-plain-http';
/** The same, for test harnesses that start many guardians: `UNIT_GUARDIAN_INSECURE_PLAIN_HTTP=1`. */
export const INSECURE_PLAIN_HTTP_ENV = 'UNIT_GUARDIAN_INSECURE_PLAIN_HTTP';
export const plainHttpAllowed = () => process.env[INSECURE_PLAIN_HTTP_ENV] === '1';

/**
 * A loopback guardian's URL in a network made on this machine (`dkg`, `local`): https, so the
 * embedded network's links are TLS like any other; http only for local development, when plain
 * HTTP is allowed explicitly.
 */
export const localUrl = (port: number) =>
  `${plainHttpAllowed() ? 'http' : 'https'}://127.0.0.1:${port}`;

/**
 * The refusal of a network whose set lists plain http:// URLs when plain HTTP was not allowed: its
 * guardians would refuse to start, one by one; this says why at once, and what to do.
 */
export function plainSetProblem(urls: readonly string[], where: string): string | null {
  if (plainHttpAllowed() || !urls.some((u) => u.startsWith('http:'))) return null;
  return `The guardian set in ${where} lists plain http:// URLs, and a guardian refuses plain connections. Start over with a fresh directory (on the devnet, remove DATA_DIR) to make a network with https:// URLs, or allow plain HTTP with ${INSECURE_PLAIN_HTTP_FLAG} (${INSECURE_PLAIN_HTTP_ENV}=1) for local development only.`;
}

/**
 * Whether a guardian whose own URL is `url` listens on plain HTTP: only an `http://` URL with the
 * local-development flag; an `https://` URL (or none yet) is TLS. A plain URL without the flag
 * stops the start, with the sentence an operator needs.
 */
export function listensPlain(url: string | undefined, insecurePlainHttp: boolean): boolean {
  if (!url || new URL(url).protocol === 'https:') return false;
  if (insecurePlainHttp) return true;
  throw new Error(
    `This guardian's URL ${url} is plain HTTP, and a guardian refuses plain connections: give it an https:// URL (every link is TLS 1.3 bound to the set's identity keys), or start it with ${INSECURE_PLAIN_HTTP_FLAG} for local development only.`,
  );
}

/**
 * A guardian's server: TLS 1.3 with a certificate made now and bound to its identity (its own
 * calls present the same one), or plain HTTP when listensPlain allows it.
 */
export async function guardianServer(
  identity: Identity,
  ownUrl: string | undefined,
  insecurePlainHttp: boolean,
  node: GuardianRoutes,
): Promise<Server> {
  const plain = listensPlain(ownUrl, insecurePlainHttp || plainHttpAllowed());
  const route = (req: IncomingMessage, res: ServerResponse) => routeGuardian(req, res, node);
  // A plain guardian makes no certificate (and never loads the certificate library); its calls to
  // an https party would make one then (linkCredentials).
  if (plain) return createServer(route);
  return createTlsServer(serverTlsOptions(await linkCredentials(identity)), route);
}

// A guardian's HTTP routes: the public ones, rate-limited per address (public-routes.ts: its
// health, the oracle's and price routes, the published set), and the one POST endpoint for signed
// messages (node.ts handles them).
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ProtocolError, type Wire } from './envelope';
import type { PublicRoutes } from './public-routes';
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
    .then((raw) => node.handle(raw))
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

/** The port a guardian listens on: its own URL's (from its set, roster or public part). */
export function portOf(url: string | undefined): number {
  if (!url) throw new Error('no port: give --port, or init the directory with its --url');
  const u = new URL(url);
  return Number(u.port || (u.protocol === 'https:' ? 443 : 80));
}

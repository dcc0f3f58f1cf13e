// Security headers, write rate limits and the devnet controls' same-origin rule (findings
// 6 and 7). The CSP allows only this origin's scripts and styles (the Vite build emits no inline
// script), and connections and images only to this origin and the configured chain services.
// The headers are computed once per host (precomputed-helmet.ts), not on every request.
import type { IncomingMessage } from 'node:http';
import helmet, { routeHooks } from './precomputed-helmet';
import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance, FastifyRequest, onRequestHookHandler, RouteOptions } from 'fastify';
import type { ApiErrorDto } from '@unit/protocol';
import type { ServiceUrls } from '../config';
import { sharedRateLimitStore, type HitCounter } from './shared-rate-limits';

/** Writes allowed per client address per minute unless configured otherwise. */
export const DEFAULT_WRITES_PER_MINUTE = 30;
/** Devnet faucet, mine and price calls per client address per minute unless configured otherwise. */
export const DEFAULT_DEVNET_WRITES_PER_MINUTE = 100;

/**
 * Per-route config of write endpoints (`{config: WRITE_LIMIT}`). Every write route is limited
 * anyway (see installSecurity); the marker stays for readers of the route.
 */
export const WRITE_LIMIT = { rateLimit: {} };

/** The routes that drive the devnet: only this app's own pages and local tools may call them. */
const DEVNET_CONTROLS = '/api/devnet/';
const WRITE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

export interface SecurityOptions {
  writesPerMinute?: number;
  devnetWritesPerMinute?: number;
  /** The chain services the web app calls; their origins are the only others in the CSP. */
  services?: ServiceUrls;
  /** The address the server listens on (HOST): on loopback, pages must be on a loopback name. */
  listenHost?: string;
  /**
   * The counter every instance on one PostgreSQL shares (shared-rate-limits.ts): write limits are
   * counted there rather than in each instance's memory.
   */
  sharedLimits?: HitCounter | null;
  /** This app's public origin (http/public-origin.ts): a write's Origin may name it. */
  publicOrigin?: () => string;
}

const methodsOf = (route: RouteOptions): string[] =>
  Array.isArray(route.method) ? route.method : [route.method];

const isLoopbackName = (hostname: string): boolean =>
  hostname === 'localhost' ||
  hostname.endsWith('.localhost') ||
  hostname === '[::1]' ||
  hostname === '::1' ||
  /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(hostname);

/** The hostname of a Host header, or null when it is not one. */
function hostnameOf(host: string | undefined): string | null {
  if (!host || !HOST.test(host)) return null;
  try {
    return new URL(`http://${host}`).hostname;
  } catch {
    return null;
  }
}

/** The origins of the absolute service URLs; relative ones (the devnet's) are this origin. */
export function serviceOrigins(services: ServiceUrls | undefined): string[] {
  if (!services) return [];
  const origins = new Set<string>();
  for (const value of Object.values(services)) {
    if (!/^https?:\/\//i.test(value)) continue;
    origins.add(new URL(value).origin);
  }
  return [...origins];
}

/** host[:port] as a browser would send it; anything else never reaches a CSP header. */
const HOST = /^(?:[A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/;

/**
 * The WebSocket origin of the page's own host: CSP Level 3 lets 'self' match ws: and wss: on the
 * same host, but older browsers do not, and the guardian is a WebSocket on this host.
 */
const selfSocket = (scheme: 'ws' | 'wss') => (req: IncomingMessage) => {
  const host = req.headers.host;
  return host && HOST.test(host) ? `${scheme}://${host}` : "'self'";
};

const refusal = (error: string): ApiErrorDto => ({ error, code: 'bad_request' });

/**
 * Why a devnet control request is refused, or null. A web page on another origin can send a
 * `text/plain` POST without a CORS preflight, so only JSON is accepted (a cross-origin JSON POST
 * needs a preflight this server never grants), and a browser's `Origin` / `Sec-Fetch-Site` must
 * say the request comes from this app's own pages. A command-line tool sends neither and passes.
 */
export function devnetControlRefusal(
  request: FastifyRequest,
  options: { loopbackOnly: boolean } = { loopbackOnly: false },
): { status: number; body: ApiErrorDto } | null {
  const contentType = request.headers['content-type'];
  const mediaType = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  if (mediaType !== 'application/json')
    return {
      status: 415,
      body: refusal('Devnet controls accept only application/json'),
    };
  const site = request.headers['sec-fetch-site'];
  if (site !== undefined && site !== 'same-origin' && site !== 'none')
    return { status: 403, body: refusal("Devnet controls accept only this app's own pages") };
  const origin = request.headers.origin;
  if (origin !== undefined) {
    let host: string | null = null;
    try {
      host = new URL(origin).host;
    } catch {
      // 'null' (a sandboxed frame, a file) or garbage: not this app
    }
    if (host === null || host !== request.headers.host)
      return { status: 403, body: refusal("Devnet controls accept only this app's own pages") };
    // DNS rebinding: a page on evil.example, re-pointed at 127.0.0.1, is "same origin" with
    // itself. A server listening on loopback is reached by its own pages under a loopback name.
    const hostname = hostnameOf(request.headers.host);
    if (options.loopbackOnly && (hostname === null || !isLoopbackName(hostname)))
      return { status: 403, body: refusal("Devnet controls accept only this app's own pages") };
  }
  return null;
}

const CROSS_SITE_WRITE = "Writes are accepted only from this app's own pages";

/**
 * Why a write under /api from a browser is refused as another site's, or null. A page elsewhere
 * (another site, a sibling subdomain SameSite=Lax counts as the same site, a sandboxed frame) can
 * send a `text/plain` or bodiless POST that carries the visitor's session cookie and needs no
 * preflight; the browser says where it comes from in `Sec-Fetch-Site` and `Origin`. The app's own
 * pages are same-origin: Origin is the public origin or the host the browser reached. A client
 * that sends neither header (a script, not a browser) is not a page and passes.
 */
export function crossSiteWriteRefusal(
  request: FastifyRequest,
  publicOrigin: string,
): ApiErrorDto | null {
  const site = request.headers['sec-fetch-site'];
  if (site !== undefined && site !== 'same-origin' && site !== 'none')
    return { error: CROSS_SITE_WRITE, code: 'forbidden' };
  const origin = request.headers.origin;
  if (origin === undefined || origin === publicOrigin) return null;
  let host: string | null = null;
  try {
    host = new URL(origin).host;
  } catch {
    // 'null' (a sandboxed frame, a file) or garbage: not this app
  }
  if (host !== null && host === request.headers.host) return null;
  return { error: CROSS_SITE_WRITE, code: 'forbidden' };
}

/**
 * The security headers of the API's answers (JSON, the history's CSV, the event stream): data a
 * script reads, never a document a browser renders, so helmet's set (written for HTML pages,
 * about 620 bytes with the page's CSP) is cut to what still protects data:
 * - nosniff: the answer is only ever read as its declared type (never JSON as HTML or script),
 *   which is also what lets the browser keep another site's no-cors request from reading it (ORB);
 * - Cross-Origin-Resource-Policy same-origin: another site cannot pull the answer into its own
 *   page's process (an <img> or <script> of it), where a side channel could read it;
 * - a CSP that allows nothing and no framing: an answer opened as a document (a link to the URL)
 *   runs nothing, loads nothing and cannot be framed, whatever its text holds.
 * Left to the pages: X-Frame-Options (frame-ancestors says it to every browser with CSP 2),
 * Referrer-Policy (data has no links to send a referrer from), Cross-Origin-Opener-Policy,
 * Origin-Agent-Cluster and X-DNS-Prefetch-Control (settings of a document's window, which data
 * has none of), X-XSS-Protection: 0 (turns off an old browser's filter of HTML), X-Download-Options
 * (Internet Explorer 8's) and X-Permitted-Cross-Domain-Policies (Flash's policy files).
 */
export const API_HEADERS: Readonly<Record<string, string>> = {
  'x-content-type-options': 'nosniff',
  'cross-origin-resource-policy': 'same-origin',
  'content-security-policy': "default-src 'none'; frame-ancestors 'none'",
};

export async function installSecurity(
  app: FastifyInstance,
  options: SecurityOptions = {},
): Promise<void> {
  const services = serviceOrigins(options.services);
  await app.register(helmet, {
    contentSecurityPolicy: {
      directives: {
        defaultSrc: ["'self'"],
        scriptSrc: ["'self'"],
        styleSrc: ["'self'", "'unsafe-inline'"],
        // data: for wallet icons, which wallets hand over as data: URLs.
        imgSrc: ["'self'", 'data:', ...services],
        fontSrc: ["'self'", 'data:'],
        connectSrc: ["'self'", selfSocket('ws'), selfSocket('wss'), ...services],
        objectSrc: ["'none'"],
        frameAncestors: ["'none'"],
        baseUri: ["'self'"],
        formAction: ["'self'"],
        upgradeInsecureRequests: null,
      },
    },
    // The app is reached over plain HTTP on loopback; HSTS would break that.
    hsts: false,
    api: { prefix: '/api/', headers: API_HEADERS },
  });

  // A client that hung up before its request reached the hooks has no address left (Node forgets
  // a closed socket's peer): nothing can be answered or counted against it, so nothing is done.
  // Without this the rate limiter's key (request.ip) threw a TypeError on every such request.
  app.addHook('onRequest', (request, reply, done) => {
    if (request.ip === undefined) {
      reply.hijack();
      request.raw.destroy();
    }
    done();
  });

  // Every write under /api from a browser must come from this app's own pages, with or without a
  // body and whichever module registers it: cookie-authenticated writes (register, verify, links,
  // logout, notify) and the sign-in that sets the cookie. Before the body is read and any limit
  // is counted. A hook on each write route, chosen by its pattern so no spelling of the URL gets
  // past, and none on the reads: they pass no check of this kind at all. The devnet controls keep
  // their own, stricter rule (below).
  const publicOrigin = options.publicOrigin ?? (() => '');
  const crossSiteCheck: onRequestHookHandler = (request, reply, done) => {
    if (!WRITE_METHODS.has(request.method)) return done();
    const refused = crossSiteWriteRefusal(request, publicOrigin());
    if (refused) return void reply.code(403).send(refused);
    done();
  };
  const loopbackOnly = isLoopbackName(options.listenHost ?? '127.0.0.1');
  const devnetCheck: onRequestHookHandler = (request, reply, done) => {
    if (request.method !== 'POST') return done();
    const refused = devnetControlRefusal(request, { loopbackOnly });
    if (refused) return void reply.code(refused.status).send(refused.body);
    done();
  };
  // Registered before the rate limiter, whose own hook then comes after these on each route; the
  // security headers' hook (precomputed-helmet.ts) is put before them all.
  app.addHook('onRoute', (route) => {
    if (!methodsOf(route).some((method) => WRITE_METHODS.has(method))) return;
    if (!route.url.startsWith('/api/')) return;
    const check = route.url.startsWith(DEVNET_CONTROLS) ? devnetCheck : crossSiteCheck;
    const hooks = routeHooks(route.onRequest);
    if (!hooks.includes(check)) route.onRequest = [...hooks, check];
  });

  // Every write route gets a limit per client address, whichever module registers it, so a new
  // POST cannot be added unlimited. This hook runs before the rate-limit plugin's own onRoute hook,
  // which then reads the per-route config. Buckets are per route.
  const writes = options.writesPerMinute ?? DEFAULT_WRITES_PER_MINUTE;
  const devnetWrites = options.devnetWritesPerMinute ?? DEFAULT_DEVNET_WRITES_PER_MINUTE;
  app.addHook('onRoute', (route) => {
    if (!methodsOf(route).some((method) => WRITE_METHODS.has(method))) return;
    const max = route.url.startsWith(DEVNET_CONTROLS) ? devnetWrites : writes;
    route.config = { ...route.config, rateLimit: { max } };
  });
  await app.register(rateLimit, {
    global: false,
    max: writes,
    timeWindow: '1 minute',
    ...(options.sharedLimits ? { store: sharedRateLimitStore(options.sharedLimits) } : {}),
  });
}

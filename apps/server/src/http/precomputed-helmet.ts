// helmet's security headers, computed once. @fastify/helmet builds helmet's middleware on every
// request (the CSP string included), which cost a third of the throughput of the hot JSON routes;
// the headers depend only on the options, so this plugin asks helmet for them at start-up and sets
// the same ones on every reply. It takes helmet's options unchanged: security.ts registers it in
// @fastify/helmet's place with the same CSP directives, and may give the API's data answers a
// shorter set of their own (security.ts, API_HEADERS).
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyPluginCallback, onRequestHookHandler } from 'fastify';
import fp from 'fastify-plugin';
import helmet, { type HelmetOptions } from 'helmet';

/** The headers helmet's middleware sets for these options (lower-case names). */
export function helmetHeaders(
  options: HelmetOptions,
  request: Partial<IncomingMessage> = {},
): Record<string, string> {
  const headers: Record<string, string> = {};
  const response = {
    setHeader(name: string, value: string | number | readonly string[]) {
      headers[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : String(value);
    },
    removeHeader(name: string) {
      delete headers[name.toLowerCase()];
    },
  };
  let failure: unknown = null;
  helmet(options)(
    request as IncomingMessage,
    response as unknown as ServerResponse,
    (err?: unknown) => {
      failure = err ?? null;
    },
  );
  if (failure) throw failure instanceof Error ? failure : new Error(String(failure));
  return headers;
}

/** Hosts whose headers are kept; a deployment answers to a handful of names. */
const MAX_CACHED_HOSTS = 16;

export type PrecomputedHelmetOptions = HelmetOptions & {
  /**
   * The routes whose pattern starts with `prefix` answer data, never a page (JSON, CSV, an event
   * stream): they get `headers` instead of helmet's set, which is written for HTML documents.
   */
  api?: { prefix: string; headers: Readonly<Record<string, string>> };
};

/** A route's onRequest hooks as an array, whichever way they were given. */
export function routeHooks(hooks: unknown): onRequestHookHandler[] {
  if (Array.isArray(hooks)) return hooks as onRequestHookHandler[];
  return typeof hooks === 'function' ? [hooks as onRequestHookHandler] : [];
}

const fixedHeaders =
  (headers: Readonly<Record<string, string>>): onRequestHookHandler =>
  (_request, reply, next) => {
    reply.headers(headers);
    next();
  };

const precomputedHelmet: FastifyPluginCallback<PrecomputedHelmetOptions> = (
  app,
  { api, ...options },
  done,
) => {
  // CSP directives may name the page's own host (its WebSocket origin), so the headers are
  // computed once per Host header rather than once in all; any other input is not read.
  const byHost = new Map<string, Record<string, string>>();
  const headersFor = (host: string | undefined): Record<string, string> => {
    const key = host ?? '';
    const cached = byHost.get(key);
    if (cached) return cached;
    const headers = helmetHeaders(options, { headers: host === undefined ? {} : { host } });
    if (byHost.size < MAX_CACHED_HOSTS) byHost.set(key, headers);
    return headers;
  };
  const pageHeaders: onRequestHookHandler = (request, reply, next) => {
    reply.headers(headersFor(request.headers.host));
    next();
  };
  const apiRoutes = api && { prefix: api.prefix, hook: fixedHeaders(api.headers) };
  // Each route gets its set as a hook of its own, chosen once by its pattern (never the raw URL:
  // no spelling of a page's URL reaches the shorter set), and first among its hooks, so every
  // answer carries it, a refusal by a later hook included. A per-request look-up of the matched
  // route (request.routeOptions builds an object each time) cost the hot routes more than this.
  app.addHook('onRoute', (route) => {
    const hook = apiRoutes && route.url.startsWith(apiRoutes.prefix) ? apiRoutes.hook : pageHeaders;
    const hooks = routeHooks(route.onRequest);
    // The HEAD route Fastify adds for a GET may come with the GET's hooks already.
    if (!hooks.includes(hook)) route.onRequest = [hook, ...hooks];
  });
  // What matched no route (a 404, the page the not-found handler serves) has no hooks of its own.
  app.addHook('onRequest', (request, reply, next) => {
    if (request.is404) reply.headers(headersFor(request.headers.host));
    next();
  });
  done();
};

export default fp(precomputedHelmet, { name: 'precomputed-helmet', fastify: '5.x' });

// helmet's security headers, computed once. @fastify/helmet builds helmet's middleware on every
// request (the CSP string included), which cost a third of the throughput of the hot JSON routes;
// the headers depend only on the options, so this plugin asks helmet for them at start-up and sets
// the same ones on every reply. It takes helmet's options unchanged: security.ts registers it in
// @fastify/helmet's place with the same CSP directives, and may give the API's data answers a
// shorter set of their own (security.ts, API_HEADERS).
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyPluginCallback } from 'fastify';
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
  app.addHook('onRequest', (request, reply, next) => {
    // The matched route's pattern, not the raw URL: no spelling of a page's URL reaches the
    // shorter set, and an unmatched one (the page, a 404) keeps the full one.
    const route = api && request.routeOptions.url;
    reply.headers(
      route && route.startsWith(api.prefix) ? api.headers : headersFor(request.headers.host),
    );
    next();
  });
  done();
};

export default fp(precomputedHelmet, { name: 'precomputed-helmet', fastify: '5.x' });

// The web app's calls to its own server, through the route table (@unit/protocol/wire): a route
// by name, its parameters, query and body typed by the table's schemas, its answer by the answer's.
// Only the paths are loaded with the first chunk; the answers' validator comes on the first call.
import type {
  RouteBody,
  RouteName,
  RouteParams,
  RouteQuery,
  RouteResponse,
} from '@unit/protocol/wire';
import { fillPath, queryString, ROUTE_PATHS } from '@unit/protocol/wire/paths';
import { takeFirstAnswer } from './first-data';
import { fetchJson, isNotFound } from './http';

/** A request part: absent when the route has none, optional when every field of it is. */
type Part<N extends string, T> = [T] extends [undefined]
  ? { [P in N]?: undefined }
  : object extends T
    ? { [P in N]?: T }
    : { [P in N]: T };

export type CallParts<K extends RouteName> = Part<'params', RouteParams<K>> &
  Part<'query', RouteQuery<K>> &
  Part<'body', RouteBody<K>>;

/** The URL of a route's request: its path filled in, its query written (as the server embeds it). */
export function routeUrl<K extends RouteName>(name: K, parts: CallParts<K>): string {
  const { params, query } = parts as {
    params?: Record<string, string | number>;
    query?: Record<string, unknown>;
  };
  return fillPath(ROUTE_PATHS[name].path, params) + queryString(query);
}

const answerCheck = () => import('./answer-check');

/**
 * Calls a route of the table (`{}` when it takes nothing); failures throw HttpError (http.ts), and
 * so does an answer not in the table's shape (answer-check.ts). An answer the page itself carries
 * (first-data.ts) was written by the server's serialiser of the same table: taken as it is, so the
 * first paint does not wait for the validator's chunk.
 */
export async function callApi<K extends RouteName>(
  name: K,
  parts: CallParts<K>,
  init: Pick<RequestInit, 'signal' | 'keepalive'> = {},
): Promise<RouteResponse<K>> {
  const { method } = ROUTE_PATHS[name];
  const url = routeUrl(name, parts);
  if (method === 'GET') {
    const first = takeFirstAnswer(url);
    if (first) return first.body as RouteResponse<K>;
  }
  // Loaded while the request is under way; a failed load surfaces after the request's own failure.
  const check = answerCheck();
  check.catch(() => undefined);
  const { status, body } = await fetchJson(
    url,
    method === 'GET'
      ? init
      : {
          ...init,
          method,
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify((parts as { body?: unknown }).body ?? {}),
        },
  );
  return (await check).checkAnswer(name, status, body);
}

/** Calls a route that answers 404 for a thing that does not exist: that answer is null. */
export async function callApiOrNull<K extends RouteName>(
  name: K,
  parts: CallParts<K>,
): Promise<RouteResponse<K> | null> {
  try {
    return await callApi(name, parts);
  } catch (error) {
    if (isNotFound(error)) return null;
    throw error;
  }
}

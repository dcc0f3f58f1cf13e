// The web app's check of its server's answers against the route table (@unit/protocol/wire): loaded
// on demand by callApi (call.ts), so the first chunk carries no validator. An answer that is not
// the table's shape is a clear error the page can show, never a crash further down.
import { API_ROUTES, type RouteName, type RouteResponse } from '@unit/protocol/wire';
import { HttpError, MALFORMED_ANSWER } from './http';

export function checkAnswer<K extends RouteName>(
  name: K,
  status: number,
  body: unknown,
): RouteResponse<K> {
  const route = API_ROUTES[name];
  const result = route.response.safeParse(body);
  if (!result.success)
    throw new HttpError(
      `The server's answer to ${route.method} ${route.path} is not in the form this page expects. Reload the page; if it happens again, the server may be updating, so try again in a few minutes.`,
      status,
      MALFORMED_ANSWER,
    );
  return result.data as RouteResponse<K>;
}

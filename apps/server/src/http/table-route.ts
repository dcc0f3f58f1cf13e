// Registers a route of the public API from the route table (@unit/protocol/wire): its method and
// path, its path parameters, query and body validated with the table's schemas before the handler
// runs (so before any lock or query), and its answer serialised by the table's answer schema
// (Fastify's fast-json-stringify, several times faster than JSON.stringify).
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteShorthandOptions } from 'fastify';
import type * as z from 'zod';
import {
  API_ROUTES,
  bodilessStatus,
  responseJsonSchema,
  type RouteBodyParsed,
  type RouteName,
  type RouteParamsParsed,
  type RouteQueryParsed,
  type RouteResponse,
} from '@unit/protocol/wire';
import { parseInput } from './errors';

/** What a table route's handler gets: its request's parts, validated. */
export interface TableInput<K extends RouteName> {
  params: RouteParamsParsed<K>;
  query: RouteQueryParsed<K>;
  body: RouteBodyParsed<K>;
  request: FastifyRequest;
  reply: FastifyReply;
}

export type TableHandler<K extends RouteName> = (
  input: TableInput<K>,
) => Promise<TableAnswer<K>> | TableAnswer<K>;

/** The answer, or the reply when the handler sent bytes of its own (a cached JSON text). */
type TableAnswer<K extends RouteName> = RouteResponse<K> | FastifyReply;

const part = (schema: z.ZodType | undefined, value: unknown): unknown =>
  schema ? parseInput(schema, value) : undefined;

export function tableRoute<K extends RouteName>(
  app: FastifyInstance,
  name: K,
  handler: TableHandler<K>,
  options: Pick<RouteShorthandOptions, 'config' | 'bodyLimit' | 'preHandler'> = {},
): void {
  const route = API_ROUTES[name] as {
    method: 'GET' | 'POST';
    path: string;
    params?: z.ZodType;
    query?: z.ZodType;
    body?: z.ZodType;
    status?: number;
    contentType?: string;
  };
  const status = route.status ?? 200;
  // A route that sends its own bytes (a stream, a file) or none is not serialised by a schema.
  const serialised = !route.contentType && !bodilessStatus(status);
  app.route({
    method: route.method,
    url: route.path,
    ...options,
    ...(serialised ? { schema: { response: { [status]: responseJsonSchema(name) } } } : {}),
    handler: async (request, reply) => {
      const input = {
        params: part(route.params, request.params),
        query: part(route.query, request.query),
        body: part(route.body, request.body),
        request,
        reply,
      } as TableInput<K>;
      // Set before the handler runs, so one that answers otherwise (a 503, a refusal) is kept.
      if (status !== 200) reply.status(status);
      return handler(input);
    },
  });
}

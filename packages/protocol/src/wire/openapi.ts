// The OpenAPI 3.0 document of the route table, for integrators (served as /api/openapi.json), and
// each answer's JSON Schema, which the server serialises with. Both come from zod's own converter.
import * as z from 'zod';
import { apiErrorSchema } from './fields';
import { API_ROUTES, type ApiRoute } from './routes';
import type { RouteName } from './route-paths';
import { bodilessStatus } from './route-schema';

type JsonSchema = Record<string, unknown>;

const openApiSchema = (schema: z.ZodType, io: 'input' | 'output'): JsonSchema =>
  z.toJSONSchema(schema, { target: 'openapi-3.0', io, unrepresentable: 'any' }) as JsonSchema;

/**
 * An answer's schema as Fastify's serialiser reads it: OpenAPI's `nullable: true` (which
 * fast-json-stringify understands) rather than draft 7's `anyOf` with null, which it would
 * check value by value.
 */
export const responseJsonSchema = (name: RouteName): JsonSchema =>
  openApiSchema(API_ROUTES[name].response, 'output');

function parameters(route: ApiRoute): JsonSchema[] {
  const list: JsonSchema[] = [];
  for (const where of ['path', 'query'] as const) {
    const schema = where === 'path' ? routeField(route, 'params') : routeField(route, 'query');
    if (!schema) continue;
    const json = openApiSchema(schema, 'input') as {
      properties?: Record<string, JsonSchema>;
      required?: string[];
    };
    for (const [name, property] of Object.entries(json.properties ?? {})) {
      list.push({
        name,
        in: where,
        required: where === 'path' || (json.required ?? []).includes(name),
        schema: property,
      });
    }
  }
  return list;
}

function routeField(route: ApiRoute, field: 'params' | 'query' | 'body'): z.ZodType | undefined {
  return (route as Partial<Record<typeof field, z.ZodType>>)[field];
}

const errorResponse = {
  description: 'An error: a sentence saying what happened and what to do, and its code.',
  content: { 'application/json': { schema: openApiSchema(apiErrorSchema, 'output') } },
};

/** The answer: JSON by its schema, another media type as text, nothing for 204 and redirects. */
function answer(name: RouteName, route: ApiRoute): JsonSchema {
  const { status = 200, contentType } = route as { status?: number; contentType?: string };
  if (bodilessStatus(status)) return { description: route.summary };
  const media = contentType ?? 'application/json';
  return { description: route.summary, content: { [media]: { schema: responseJsonSchema(name) } } };
}

function operation(name: RouteName, route: ApiRoute): JsonSchema {
  const body = routeField(route, 'body');
  const status = String((route as { status?: number }).status ?? 200);
  return {
    operationId: name,
    summary: route.summary,
    parameters: parameters(route),
    ...(body
      ? {
          requestBody: {
            required: true,
            content: { 'application/json': { schema: openApiSchema(body, 'input') } },
          },
        }
      : {}),
    responses: {
      [status]: answer(name, route),
      default: errorResponse,
    },
  };
}

/** The whole document: one path per route of the table, `:name` written `{name}`. */
export function openApiDocument(info: { title: string; version: string }): JsonSchema {
  const paths: Record<string, Record<string, JsonSchema>> = {};
  for (const [name, route] of Object.entries(API_ROUTES) as [RouteName, ApiRoute][]) {
    const path = route.path.replace(/:([A-Za-z]+)/g, '{$1}');
    paths[path] = { ...paths[path], [route.method.toLowerCase()]: operation(name, route) };
  }
  return { openapi: '3.0.3', info, paths };
}

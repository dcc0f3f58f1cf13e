// GET /api/openapi.json: the OpenAPI 3 document of the route table, for integrators. Written once
// at start (the table does not change while the server runs).
import type { FastifyInstance } from 'fastify';
import { openApiDocument } from '@unit/protocol/wire';

export const OPENAPI_PATH = '/api/openapi.json';

export function registerOpenApiRoute(app: FastifyInstance): void {
  const json = JSON.stringify(openApiDocument({ title: 'UNIT vault API', version: '1.0.0' }));
  app.get(OPENAPI_PATH, (_request, reply) =>
    reply.type('application/json; charset=utf-8').send(json),
  );
}

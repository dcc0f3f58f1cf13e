// GET /api/openapi.json: the OpenAPI 3 document of the route table, for integrators. Written once
// at start (the table does not change while the server runs).
import type { FastifyInstance } from 'fastify';
import { API_ROUTES, openApiDocument } from '@unit/protocol/wire';
import { tableRoute } from './table-route';

export const OPENAPI_PATH = API_ROUTES.openApi.path;

export function registerOpenApiRoute(app: FastifyInstance): void {
  const json = JSON.stringify(openApiDocument({ title: 'UNIT vault API', version: '1.0.0' }));
  tableRoute(app, 'openApi', ({ reply }) =>
    reply.type('application/json; charset=utf-8').send(json),
  );
}

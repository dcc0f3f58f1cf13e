import { Validator } from '@seriousme/openapi-schema-validator';
import { describe, expect, it } from 'vitest';
import { openApiDocument, responseJsonSchema } from './openapi';
import { fillPath, queryString, ROUTE_PATHS, type RouteName } from './route-paths';
import { API_ROUTES, routeOfRequest } from './routes';

const names = Object.keys(ROUTE_PATHS) as RouteName[];

describe('the route table', () => {
  it('gives every route a path, a method and an answer schema', () => {
    for (const name of names) {
      expect(API_ROUTES[name].path).toBe(ROUTE_PATHS[name].path);
      expect(API_ROUTES[name].response).toBeDefined();
    }
  });

  it('finds the route of a request by method and path, parameters included', () => {
    expect(routeOfRequest('GET', '/api/vaults')).toBe('vaults');
    expect(routeOfRequest('GET', '/api/vaults/v1/history')).toBe('vaultHistory');
    expect(routeOfRequest('GET', '/api/vaults/by-pubkey/ab')).toBe('vaultByPubkey');
    expect(routeOfRequest('POST', '/api/vaults')).toBeNull();
    expect(routeOfRequest('GET', '/api/vaults/v1/history/more')).toBeNull();
  });

  it('fills path parameters encoded, and writes only the defined query values', () => {
    expect(fillPath('/api/vaults/:vaultId/history', { vaultId: 'a/b c' })).toBe(
      '/api/vaults/a%2Fb%20c/history',
    );
    expect(() => fillPath('/api/vaults/:vaultId/history')).toThrow(/vaultId/);
    expect(queryString({ limit: 20, before: undefined })).toBe('?limit=20');
    expect(queryString({})).toBe('');
  });

  it('reads a query as the server receives it: text, coerced and checked', () => {
    const query = API_ROUTES.vaultHistory.query;
    expect(query.parse({})).toEqual({ limit: 20 });
    expect(query.parse({ limit: '5', before: '1700000000.3' })).toEqual({
      limit: 5,
      before: '1700000000.3',
    });
    expect(query.safeParse({ limit: '101' }).success).toBe(false);
    expect(query.safeParse({ before: '1.2.3' }).success).toBe(false);
    expect(API_ROUTES.vaults.query.parse({ pubkey: 'AB'.repeat(32) })).toEqual({
      pubkey: 'ab'.repeat(32),
    });
  });
});

describe('the OpenAPI document', () => {
  const doc = openApiDocument({ title: 'UNIT', version: '1' });

  it('is a valid OpenAPI 3 document', async () => {
    const result = await new Validator().validate(doc);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
  });

  it('lists every route of the table with its parameters and answer', () => {
    const paths = doc.paths as Record<string, Record<string, Record<string, unknown>>>;
    for (const name of names) {
      const { method, path } = ROUTE_PATHS[name];
      const op = paths[path.replace(/:([A-Za-z]+)/g, '{$1}')]?.[method.toLowerCase()];
      expect(op, `${method} ${path}`).toBeDefined();
      expect(op!.operationId).toBe(name);
    }
    const history = paths['/api/vaults/{vaultId}/history']!.get!.parameters as {
      name: string;
      in: string;
      required: boolean;
    }[];
    expect(history.map((p) => [p.name, p.in, p.required])).toEqual([
      ['vaultId', 'path', true],
      ['limit', 'query', false],
      ['before', 'query', false],
    ]);
  });

  it('writes a nullable field as OpenAPI does, which the serialiser reads', () => {
    const page = responseJsonSchema('vaultHistory') as {
      properties: Record<string, Record<string, unknown>>;
    };
    expect(page.properties.next).toMatchObject({ type: 'string', nullable: true });
  });
});

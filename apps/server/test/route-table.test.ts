// The server against the route table (@unit/protocol/wire): every table route registered, the
// OpenAPI document served, inputs refused at the edge, and the answers' check able to fail.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Validator } from '@seriousme/openapi-schema-validator';
import { ROUTE_PATHS, type RouteName } from '@unit/protocol/wire';
import { checkAgainstRouteTable, getJson, startTestApp, type RunningApp } from './support';

let server: RunningApp;

beforeAll(async () => {
  server = await startTestApp();
});
afterAll(async () => {
  await server.stop();
});

const names = Object.keys(ROUTE_PATHS) as RouteName[];

describe('the route table on the server', () => {
  it('registers every route of the table', () => {
    const missing = names.filter((name) => {
      const { method, path } = ROUTE_PATHS[name];
      return !server.app.hasRoute({ method, url: path });
    });
    // What the test app's configuration leaves out: the indexer proxy rides an ord indexer, and
    // /metrics is served on the app's port only when metrics are on without a port of their own.
    expect(missing).toEqual(['indexerOutputs', 'indexerUtxos', 'metrics']);
  });

  it('serves the OpenAPI 3 document of every table route', async () => {
    const res = await fetch(`${server.url}/api/openapi.json`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    const doc = (await res.json()) as { openapi: string; paths: Record<string, object> };
    const result = await new Validator().validate(doc);
    expect(result.errors ?? []).toEqual([]);
    expect(doc.openapi).toMatch(/^3\./);
    for (const name of names) {
      const { method, path } = ROUTE_PATHS[name];
      const op = doc.paths[path.replace(/:([A-Za-z]+)/g, '{$1}')] as Record<string, unknown>;
      expect(op?.[method.toLowerCase()], `${method} ${path}`).toBeDefined();
    }
  });

  it('lists the streams and files with their media type, and no body for 204 and redirects', async () => {
    const res = await fetch(`${server.url}/api/openapi.json`);
    type Op = { responses: Record<string, { content?: Record<string, unknown> }> };
    const doc = (await res.json()) as { paths: Record<string, Record<string, Op>> };
    const media = (path: string, status: string) =>
      Object.keys(doc.paths[path]!.get?.responses[status]?.content ?? {});
    expect(media('/api/events', '200')).toEqual(['text/event-stream']);
    expect(media('/api/vaults/{vaultId}/history.csv', '200')).toEqual(['text/csv']);
    expect(media('/metrics', '200')).toEqual(['text/plain']);
    expect(media('/api/bitcoin-price', '200')).toEqual(['application/json']);
    expect(doc.paths['/api/auth/logout']!.post!.responses['204']).toEqual({
      description: expect.any(String),
    });
    expect(Object.keys(doc.paths['/api/oauth/{provider}/callback']!.get!.responses)).toContain(
      '302',
    );
  });

  it('refuses a query outside the table with a 400 naming it', async () => {
    const tooMany = await getJson(`${server.url}/api/vaults/any/history?limit=1000`);
    expect(tooMany.status).toBe(400);
    expect(JSON.stringify(tooMany.body)).toMatch(/limit/);
    const badCursor = await getJson(`${server.url}/api/vaults/any/history?before=x`);
    expect(badCursor.status).toBe(400);
    const badKey = await getJson(`${server.url}/api/vaults?pubkey=zz`);
    expect(badKey.status).toBe(400);
  });

  it('fails a test whose answer drifted from the table', async () => {
    const { body } = await getJson(`${server.url}/api/bitcoin-price`);
    const url = `${server.url}/api/bitcoin-price`;
    expect(() => checkAgainstRouteTable('GET', url, 200, body)).not.toThrow();
    const drifted = { ...(body as object), time: 'now' };
    expect(() => checkAgainstRouteTable('GET', url, 200, drifted)).toThrow(/bitcoin-price/);
    expect(() => checkAgainstRouteTable('GET', url, 400, { error: 1 })).toThrow(/400/);
  });
});

// Starts the real app on a free loopback port with a temporary SQLite file, for tests that drive
// it over HTTP.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import * as z from 'zod';
import { API_ROUTES, apiErrorSchema, routeOfRequest } from '@unit/protocol/wire';
import { buildApp, type BuildAppOptions, type UnitApp } from '../src/app';
import { loadConfig } from '../src/config';

export interface RunningApp extends UnitApp {
  url: string;
  stop(): Promise<void>;
}

export async function startTestApp(
  env: Record<string, string> = {},
  options: BuildAppOptions = {},
): Promise<RunningApp> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'unit-server-'));
  const config = loadConfig({
    DATA_DIR: dir,
    PORT: '0',
    BLOCK_INTERVAL: '3600000',
    PRICE_TICK: '86400000',
    ...env,
  });
  const unit = await buildApp(config, {
    logger: pino({ level: 'silent' }),
    webDistDir: path.join(dir, 'no-web-build'),
    ...options,
  });
  const address = await unit.app.listen({ port: 0, host: '127.0.0.1' });
  return {
    ...unit,
    url: address,
    stop: async () => {
      await unit.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * An answer of a route of the route table must be what the table says: its answer schema when it
 * succeeded, the error body otherwise. Every test's request through getJson and postJson is
 * checked, so a route that drifts from the contract fails the tests that call it.
 */
export function checkAgainstRouteTable(method: string, url: string, status: number, body: unknown) {
  const { pathname } = new URL(url);
  const name = routeOfRequest(method, pathname);
  if (!name) return;
  const schema = status >= 200 && status < 300 ? API_ROUTES[name].response : apiErrorSchema;
  const result = schema.safeParse(body);
  if (!result.success) {
    throw new Error(
      `${method} ${pathname} answered ${status} outside the route table's schema:\n` +
        z.prettifyError(result.error),
    );
  }
}

export async function getJson(url: string): Promise<{ status: number; body: unknown }> {
  const res = await fetch(url);
  const body: unknown = await res.json();
  checkAgainstRouteTable('GET', url, res.status, body);
  return { status: res.status, body };
}

export async function postJson(
  url: string,
  body: unknown,
): Promise<{ status: number; body: unknown }> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const answer: unknown = await res.json();
  checkAgainstRouteTable('POST', url, res.status, answer);
  return { status: res.status, body: answer };
}

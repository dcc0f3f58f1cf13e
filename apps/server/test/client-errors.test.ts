// POST /api/client-errors on the real app: what a browser error boundary reports is logged, and
// nothing else gets through (unknown fields, oversize bodies, floods).
import { Writable } from 'node:stream';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiErrorDto } from '@unit/protocol';
import { postJson, startTestApp, type RunningApp } from './support';

let server: RunningApp;
const logged: Record<string, unknown>[] = [];

beforeAll(async () => {
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString().split('\n').filter(Boolean))
        logged.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  server = await startTestApp(
    {},
    { logger: pino({ level: 'info' }, sink), writeLimitPerMinute: 8 },
  );
});
afterAll(async () => {
  await server.stop();
});

const report = {
  boundary: 'screen',
  message: 'Cannot read properties of undefined',
  stack: 'TypeError: Cannot read properties of undefined\n    at Dashboard',
  componentStack: '\n    at Dashboard\n    at VaultPage',
  path: '/?action=deposit',
};

async function post(body: unknown) {
  const res = await fetch(`${server.url}/api/client-errors`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { status: res.status, text: await res.text() };
}

describe('POST /api/client-errors', () => {
  it('logs the report at error level and answers 204', async () => {
    expect((await post(report)).status).toBe(204);
    const line = logged.find((l) => l.msg === 'client error');
    expect(line).toMatchObject({ level: 50, clientError: report });
  });

  it('refuses unknown fields, a missing message and a path that is not a path', async () => {
    const extra = await postJson(`${server.url}/api/client-errors`, { ...report, cookie: 'x' });
    expect(extra.status).toBe(400);
    expect((extra.body as ApiErrorDto).code).toBe('bad_request');
    const { message: _message, ...noMessage } = report;
    expect((await post(noMessage)).status).toBe(400);
    expect((await post({ ...report, path: 'https://elsewhere.example/' })).status).toBe(400);
  });

  it('refuses a body over the size cap before parsing it', async () => {
    const huge = JSON.stringify({ ...report, stack: 'x'.repeat(20_000) });
    expect((await post(huge)).status).toBe(413);
  });

  it('is rate-limited like every write', async () => {
    let last = 0;
    // 8 a minute; the tests above spent 5.
    for (let i = 0; i < 6; i++) last = (await post(report)).status;
    expect(last).toBe(429);
  });
});

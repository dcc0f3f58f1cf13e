// GET /api/events fanning one event out to many streams on one instance (SQLite: the in-process
// bus): a tick reaches every open stream exactly once, a reader that stops taking its events is
// dropped rather than buffered for, and the refusal past an address's share says what to do.
import http from 'node:http';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_BUFFERED_BYTES } from '../src/http/events';
import { startTestApp, type RunningApp } from './support';

const STREAMS = 40;

interface RawStream {
  status: number;
  text(): string;
  isEnded(): boolean;
  close(): void;
}

function openFrom(url: string, localAddress: string): Promise<RawStream> {
  return new Promise((resolve, reject) => {
    const req = http.get(`${url}/api/events`, { localAddress, agent: false }, (res) => {
      let text = '';
      let ended = false;
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.once('close', () => (ended = true));
      resolve({
        status: res.statusCode ?? 0,
        text: () => text,
        isEnded: () => ended,
        close: () => req.destroy(),
      });
    });
    req.on('error', reject);
  });
}

const until = async (check: () => boolean, ms = 10_000) => {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 20));
  }
};

const count = (text: string, part: string) => text.split(part).length - 1;

describe('GET /api/events with many streams open', () => {
  let unit: RunningApp;
  const open: RawStream[] = [];
  beforeAll(async () => {
    unit = await startTestApp({}, { live: { maxPerAddress: 4, heartbeatMs: 200 } });
  });
  afterAll(async () => {
    for (const stream of open) stream.close();
    await unit?.stop();
  });

  it('delivers one tick to every open stream, once each', async () => {
    // 4 streams from each of 10 addresses: each address's full share.
    const streams = await Promise.all(
      Array.from({ length: STREAMS }, (_, i) =>
        openFrom(unit.url, `127.0.3.${2 + Math.floor(i / 4)}`),
      ),
    );
    open.push(...streams);
    expect(streams.map((s) => s.status)).toEqual(streams.map(() => 200));
    await until(() => unit.live.count() === STREAMS);

    const point = await unit.oracle.setPrice(7_654_321);
    const line = `data: {"USD":76543.21,"time":${point.timestamp}`;
    await until(() => streams.every((s) => s.text().includes(line)));
    expect(streams.map((s) => count(s.text(), line))).toEqual(streams.map(() => 1));
    // The shared beat keeps every one of them alive.
    await until(() => streams.every((s) => s.text().includes(': ping')));
    expect(streams.some((s) => s.isEnded())).toBe(false);
  });

  it('refuses an address past its share with a message that says what to do', async () => {
    const res = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      http
        .get(`${unit.url}/api/events`, { localAddress: '127.0.3.2', agent: false }, (r) => {
          let body = '';
          r.setEncoding('utf8');
          r.on('data', (chunk: string) => (body += chunk));
          r.on('end', () => resolve({ status: r.statusCode ?? 0, body }));
        })
        .on('error', reject);
    });
    expect(res.status).toBe(429);
    expect(JSON.parse(res.body)).toMatchObject({
      code: 'rate_limited',
      error:
        'Your address already holds 4 live connections, the most it may; close another tab of this site or try again in a minute.',
    });
    // Another address still gets in.
    const other = await openFrom(unit.url, '127.0.3.200');
    open.push(other);
    expect(other.status).toBe(200);
  });

  it('drops a reader that stops taking its events, and keeps the others', async () => {
    const reading = open.length;
    // A client that sends its request and then never reads: what is written piles up unsent.
    const stalled = net.connect({ port: Number(new URL(unit.url).port), host: '127.0.0.1' });
    await new Promise<void>((resolve) => stalled.once('connect', resolve));
    stalled.write('GET /api/events HTTP/1.1\r\nhost: localhost\r\n\r\n');
    stalled.pause();
    await until(() => unit.live.count() === reading + 1);
    // Large events until the loopback's buffers are full and the server holds more than its
    // bound for it; slowly enough that the readers keep up.
    const big = {
      type: 'vault',
      data: { vault_id: 'f'.repeat(8 * 1024), kind: 'action' },
    } as const;
    for (let i = 0; i < 3_000 && unit.live.count() > reading; i++) {
      await unit.cluster.bus.publish(big);
      await new Promise((r) => setTimeout(r, 2));
    }
    expect(unit.live.count()).toBe(reading);
    stalled.destroy();
    // The readers took every one of those events and are still open.
    await until(() => open.every((s) => s.isEnded() || s.text().length > 64 * 1024));
    expect(open.filter((s) => s.isEnded())).toEqual([]);
    expect(MAX_BUFFERED_BYTES).toBeLessThan(64 * 1024);
  }, 60_000);
});

// GET /api/events under many client addresses, 8 per address (the default) and a cap of 2,000 in
// all (the default's mechanism at a size a test opens quickly): real connections from 127.0.0.2-253 (Linux routes all of 127/8 to loopback, so each source
// address is a different client to the server) fill the cap as an attacker would, and a fresh address
// still gets its stream, taken from the heaviest holder's oldest; a newcomer never takes a stream
// from an address lighter than the heaviest.
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LIVE_DEFAULTS, LiveStreamHolders } from '../src/http/events';

const CAP = 2_000;
import { clientKey } from '../src/http/client-key';
import { startTestApp, type RunningApp } from './support';

interface RawStream {
  status: number;
  /** Everything received so far. */
  text(): string;
  /** Resolves when the server ends or drops the stream. */
  ended: Promise<void>;
  isEnded(): boolean;
  close(): void;
}

/** One stream on its own connection, from `localAddress`. */
function openFrom(url: string, localAddress: string): Promise<RawStream> {
  return new Promise((resolve, reject) => {
    const req = http.get(`${url}/api/events`, { localAddress, agent: false }, (res) => {
      let text = '';
      let ended = false;
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      const done = new Promise<void>((r) => {
        res.once('close', () => {
          ended = true;
          r();
        });
      });
      resolve({
        status: res.statusCode ?? 0,
        text: () => text,
        ended: done,
        isEnded: () => ended,
        close: () => req.destroy(),
      });
    });
    req.on('error', reject);
  });
}

const until = async (check: () => boolean, ms = 5_000) => {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 20));
  }
};

describe('GET /api/events with the cap full of other addresses', () => {
  let unit: RunningApp;
  const open: RawStream[] = [];
  const byAddress = new Map<string, RawStream[]>();
  beforeAll(async () => {
    unit = await startTestApp({}, { live: { maxStreams: CAP } });
  });
  afterAll(async () => {
    for (const stream of open) stream.close();
    await unit?.stop();
  });

  it('gives a fresh address a stream, taken from the heaviest holder', async () => {
    expect(LIVE_DEFAULTS.maxPerAddress).toBe(8);
    // 252 addresses × 8 streams: 2,016 asked for, past the cap of 2,000.
    const statuses: number[] = [];
    for (let round = 0; round < 8; round++) {
      const batch = await Promise.all(
        Array.from({ length: 252 }, async (_, i) => {
          const address = `127.0.0.${i + 2}`;
          const stream = await openFrom(unit.url, address);
          byAddress.set(address, [...(byAddress.get(address) ?? []), stream]);
          return stream;
        }),
      );
      open.push(...batch);
      statuses.push(...batch.map((s) => s.status));
    }
    await until(() => open.filter((s) => !s.isEnded()).length <= CAP);
    // The instance holds no more than its cap; an address over its share is refused.
    const ninth = await openFrom(unit.url, '127.0.0.2');
    expect(ninth.status).toBe(429);

    const fresh = await openFrom(unit.url, '127.0.0.254');
    open.push(fresh);
    expect(fresh.status).toBe(200);
    // It is a working stream: it starts with the price.
    await until(() => fresh.text().includes('event: price'));
    expect(fresh.isEnded()).toBe(false);
    // Its room came from an address holding the most (8), which lost its oldest stream and was
    // told to wait longer before reconnecting.
    await until(() => open.filter((s) => !s.isEnded()).length <= CAP);
    const evicted = open.filter((s) => s.status === 200 && s.isEnded());
    expect(evicted.length).toBeGreaterThan(0);
    for (const stream of evicted) expect(stream.text()).toContain('retry: 30000');
    expect(statuses.filter((s) => s !== 200 && s !== 429)).toEqual([]);
    expect(unit.app.server.listening).toBe(true);
  }, 60_000);

  it("keeps a light holder's stream while newcomers take room from the heaviest", async () => {
    const light = open[open.length - 1]!;
    const before = open.filter((s) => s.isEnded()).length;
    // 40 more newcomers, each from an address of its own.
    const newcomers = await Promise.all(
      Array.from({ length: 40 }, (_, i) => openFrom(unit.url, `127.0.1.${i + 2}`)),
    );
    open.push(...newcomers);
    expect(newcomers.map((s) => s.status)).toEqual(newcomers.map(() => 200));
    await until(() => open.filter((s) => s.isEnded()).length >= before + 40);
    expect(light.isEnded()).toBe(false);
    expect(newcomers.every((s) => !s.isEnded())).toBe(true);
    const open200 = open.filter((s) => s.status === 200 && !s.isEnded());
    expect(open200.length).toBeLessThanOrEqual(CAP);
  }, 60_000);
});

describe('LiveStreamHolders', () => {
  it('names the oldest stream of the address holding the most, first come first', () => {
    const holders = new LiveStreamHolders<string>();
    for (const s of ['a1', 'a2', 'a3']) holders.add('a', s);
    for (const s of ['b1', 'b2', 'b3']) holders.add('b', s);
    holders.add('c', 'c1');
    expect(holders.size).toBe(7);
    // a reached three first.
    expect(holders.victimFor('new')).toEqual({ address: 'a', stream: 'a1' });
    expect(holders.victimFor('c')).toEqual({ address: 'a', stream: 'a1' });
    // b, holding as many as a, is not heavier: nothing moves between equals (or near-equals).
    expect(holders.victimFor('b')).toBeNull();
    holders.delete('a', 'a1');
    expect(holders.victimFor('new')).toEqual({ address: 'b', stream: 'b1' });
    expect(holders.victimFor('c')).toEqual({ address: 'b', stream: 'b1' });
    holders.delete('b', 'b1');
    // Everyone holds one or two: a newcomer with none still gets in; c with one does not.
    expect(holders.victimFor('c')).toBeNull();
    expect(holders.victimFor('new')).toEqual({ address: 'a', stream: 'a2' });
    for (const s of ['a2', 'a3', 'b2', 'b3', 'c1']) holders.delete(s[0]!, s);
    expect(holders.size).toBe(0);
    expect(holders.victimFor('new')).toBeNull();
  });
});

describe('clientKey', () => {
  it('counts IPv4 by address and IPv6 by its /64', () => {
    expect(clientKey('203.0.113.7')).toBe('203.0.113.7');
    expect(clientKey('::ffff:203.0.113.7')).toBe('203.0.113.7');
    expect(clientKey('2001:db8:1:2:aaaa::1')).toBe('2001:db8:1:2::/64');
    expect(clientKey('2001:db8:1:2:ffff:ffff:ffff:ffff')).toBe('2001:db8:1:2::/64');
    expect(clientKey('2001:db8::1')).toBe('2001:db8:0:0::/64');
    expect(clientKey('::1')).toBe('0:0:0:0::/64');
    expect(clientKey(undefined)).toBe('unknown');
  });
});

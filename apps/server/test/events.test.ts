// GET /api/events on one instance (SQLite: the in-process bus): the stream opens with the current
// price and carries each price, block and vault change; an address gets a few streams, not more.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type RunningApp } from './support';
import { openEvents } from './cluster/instances';

describe('GET /api/events', () => {
  let unit: RunningApp;
  beforeAll(async () => {
    unit = await startTestApp({}, { live: { maxPerAddress: 2, heartbeatMs: 100 } });
  });
  afterAll(() => unit.stop());

  it('is an event stream that starts with the price now', async () => {
    const res = await fetch(`${unit.url}/api/events`);
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(res.headers.get('cache-control')).toContain('no-cache');
    await res.body?.cancel();

    const stream = await openEvents(unit);
    try {
      const { priceCents, timestamp } = unit.oracle.price();
      expect(await stream.next((e) => e.type === 'price')).toEqual({
        type: 'price',
        data: { USD: priceCents / 100, time: timestamp },
      });
    } finally {
      stream.close();
    }
  });

  it('carries a new price, a new block, and keeps a quiet stream alive', async () => {
    const stream = await openEvents(unit);
    try {
      const point = await unit.oracle.setPrice(8_123_456);
      expect(
        await stream.next((e) => e.type === 'price' && e.data.time === point.timestamp),
      ).toEqual({ type: 'price', data: { USD: 81_234.56, time: point.timestamp } });
      await unit.devnet!.mine(1);
      const { height } = await unit.devnet!.tip();
      await stream.next((e) => e.type === 'block' && e.data.height === height);
    } finally {
      stream.close();
    }
    // A raw read sees the heartbeat comment between events.
    const res = await fetch(`${unit.url}/api/events`);
    const reader = res.body!.getReader();
    let text = '';
    while (!text.includes(': ping')) text += new TextDecoder().decode((await reader.read()).value);
    await reader.cancel();
  });

  it('refuses an address more streams than its share, and frees them when closed', async () => {
    const open = [await openEvents(unit), await openEvents(unit)];
    expect(open.map((s) => s.status)).toEqual([200, 200]);
    const third = await openEvents(unit);
    expect(third.status).toBe(429);
    for (const stream of open) stream.close();
    // The server learns of each close from its socket; a slot is free again soon after.
    let again = await openEvents(unit);
    for (let i = 0; again.status !== 200 && i < 40; i++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      again = await openEvents(unit);
    }
    expect(again.status).toBe(200);
    again.close();
  });
});

describe('GET /api/events behind a load balancer (TRUST_PROXY=loopback)', () => {
  let unit: RunningApp;
  beforeAll(async () => {
    unit = await startTestApp({ TRUST_PROXY: 'loopback' }, { live: { maxPerAddress: 1 } });
  });
  afterAll(() => unit.stop());

  it("counts each client's streams by its forwarded address, not the balancer's", async () => {
    const first = await openEvents(unit, { 'x-forwarded-for': '203.0.113.7' });
    const other = await openEvents(unit, { 'x-forwarded-for': '198.51.100.2' });
    const again = await openEvents(unit, { 'x-forwarded-for': '203.0.113.7' });
    expect([first.status, other.status, again.status]).toEqual([200, 200, 429]);
    for (const stream of [first, other, again]) stream.close();
  });
});

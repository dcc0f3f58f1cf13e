// The public routes' bounded structures: an LRU map that never passes its cap, and a token bucket
// per address that limits each address alone and forgets the least recently seen past its cap.
import { describe, expect, it } from 'vitest';
import { AddressRateLimiter, LruMap } from './bounded';

describe('LruMap', () => {
  it('keeps at most its cap, forgetting the least recently used first', () => {
    const map = new LruMap<string, number>(3);
    map.set('a', 1);
    map.set('b', 2);
    map.set('c', 3);
    expect(map.get('a')).toBe(1); // now the most recently used
    map.set('d', 4);
    expect(map.size).toBe(3);
    expect(map.get('b')).toBeUndefined();
    expect([map.get('a'), map.get('c'), map.get('d')]).toEqual([1, 3, 4]);
  });
});

describe('AddressRateLimiter', () => {
  it('limits each address alone: a burst, then a token back at the rate, with the wait to retry', () => {
    let now = 1_000_000;
    const limiter = new AddressRateLimiter({ burst: 3, perSecond: 2 }, () => now);
    expect([1, 2, 3].map(() => limiter.take('10.0.0.1'))).toEqual([0, 0, 0]);
    expect(limiter.take('10.0.0.1')).toBe(1);
    // Another address is not limited by the first one's flood.
    expect(limiter.take('10.0.0.2')).toBe(0);
    now += 500; // one token back at 2 a second
    expect(limiter.take('10.0.0.1')).toBe(0);
    expect(limiter.take('10.0.0.1')).toBe(1);
    now += 60_000; // refilled to the burst, never past it
    expect([1, 2, 3, 4].map(() => limiter.take('10.0.0.1'))).toEqual([0, 0, 0, 1]);
  });

  it('tracks at most maxAddresses, however many addresses ask', () => {
    const limiter = new AddressRateLimiter({ burst: 1, perSecond: 1, maxAddresses: 100 }, () => 0);
    for (let i = 0; i < 10_000; i++) limiter.take(`10.0.${i >> 8}.${i & 255}`);
    expect(limiter.tracked).toBe(100);
    // The most recent addresses are still limited; a forgotten one starts with a full bucket.
    expect(limiter.take('10.0.39.15')).toBe(1);
    expect(limiter.take('10.0.0.0')).toBe(0);
  });
});

import { describe, expect, it } from 'vitest';
import { MIN_PATIENCE_MS, ShareSpread } from './share-spread';

describe('ShareSpread', () => {
  it('learns nothing before a session completed', () => {
    expect(new ShareSpread().patienceMs()).toBeUndefined();
  });

  it('waits the mean spread plus four deviations, at least 50 ms', () => {
    const s = new ShareSpread();
    s.record(2);
    expect(s.patienceMs()).toBe(MIN_PATIENCE_MS);
    for (let i = 0; i < 50; i++) s.record(80);
    // Steady at 80 ms: the deviation dies away, the wait comes down to the spread itself.
    expect(s.patienceMs()).toBeGreaterThanOrEqual(80);
    expect(s.patienceMs()).toBeLessThan(85);
  });

  it('grows when shares come far apart (a loaded host), a step per sample; ignores nonsense', () => {
    const s = new ShareSpread();
    for (let i = 0; i < 20; i++) s.record(10);
    expect(s.patienceMs()).toBe(MIN_PATIENCE_MS);
    // One late share moves the wait a step (a sample counts at most twice the wait), not to 400 ms.
    s.record(400);
    const once = s.patienceMs()!;
    expect(once).toBeGreaterThan(MIN_PATIENCE_MS);
    expect(once).toBeLessThan(200);
    // Shares far apart again and again: the wait follows them.
    for (let i = 0; i < 30; i++) s.record(400);
    expect(s.patienceMs()!).toBeGreaterThanOrEqual(400);
    const before = s.patienceMs();
    s.record(Number.NaN);
    s.record(-5);
    expect(s.patienceMs()).toBe(before);
  });
});

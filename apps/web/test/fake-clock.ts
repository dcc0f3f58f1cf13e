// Fake timers for the setTimeout/setInterval family only: fetches (MSW), React's scheduler
// (setImmediate) and promises keep running on real ticks, while the clock moves only when a test
// advances it. Testing Library's findBy*/waitFor time out on that frozen clock, hence eventually().
import { notifyManager } from '@tanstack/react-query';
import { vi } from 'vitest';

export function startFakeClock() {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval'] });
  // TanStack Query hands its results to React with setTimeout(0). One scheduled by a fetch that
  // lands while the fake clock is mid-advance is due 1 ms later (fake-timers' rule), so it would
  // wait for the next advance and a query that just settled would not show. Real ticks instead.
  notifyManager.setScheduler((notify) => setImmediate(notify));
}

/** Back to real timers, and TanStack Query's own scheduling. */
export function stopFakeClock() {
  vi.useRealTimers();
  notifyManager.setScheduler((notify) => setTimeout(notify, 0));
}

/** Lets promises, fetches and React renders run without moving the fake clock. */
export async function settle() {
  for (let i = 0; i < 10; i++) {
    await new Promise<void>((resolve) => setImmediate(resolve));
    await vi.advanceTimersByTimeAsync(0);
  }
}

/** Moves the fake clock, then settles. */
export async function advance(ms: number) {
  await vi.advanceTimersByTimeAsync(ms);
  await settle();
}

/** waitFor for a frozen clock: retries the check between real ticks. */
export async function eventually(check: () => void, rounds = 200) {
  for (let i = 0; ; i++) {
    try {
      check();
      return;
    } catch (error) {
      if (i >= rounds) throw error;
      await new Promise<void>((resolve) => setImmediate(resolve));
      await vi.advanceTimersByTimeAsync(0);
    }
  }
}

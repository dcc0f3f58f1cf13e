// The block watcher's confirmation pass after a chain read failed: tried again, not left until the
// next block (on a public network ten minutes away, in the signet rehearsal never).
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import type { Chain } from '../chain/port';
import type { EventBus } from '../cluster';
import type { Guardian } from '../cosign';
import type { TelegramNotifier } from '../notify/telegram';
import { blockWatcherJob } from './block-watcher';

const bus = { publish: () => Promise.resolve(), subscribe: () => () => {} } as unknown as EventBus;
const chain = { onBlock: () => () => {} } as unknown as Chain;
const notifier = {
  scanHistory: () => Promise.resolve(),
  onBlock: () => Promise.resolve(),
} as unknown as TelegramNotifier;
const until = async (check: () => boolean) => {
  const deadline = Date.now() + 2_000;
  while (!check() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
};

/** A guardian whose first `failures` confirmation passes fail as a timed-out chain read does. */
function guardianFailing(failures: number) {
  const passes = { tried: 0, done: 0 };
  const guardian = {
    onBlock: () => {
      passes.tried++;
      if (passes.tried <= failures) return Promise.reject(new Error('chain read timed out'));
      passes.done++;
      return Promise.resolve([]);
    },
  } as unknown as Guardian;
  return { guardian, passes };
}

describe('the block watcher', () => {
  it('tries a failed confirmation pass again until one succeeds', async () => {
    const { guardian, passes } = guardianFailing(2);
    const job = blockWatcherJob({
      bus,
      chain,
      onDevnet: false,
      guardian,
      notifier,
      log: pino({ level: 'silent' }),
      retryMs: 10,
    });
    job.start();
    await until(() => passes.done === 1);
    expect(passes).toEqual({ tried: 3, done: 1 });
    // Nothing more once a pass went through.
    await new Promise((r) => setTimeout(r, 50));
    expect(passes.tried).toBe(3);
    job.stop();
  });

  it('stops trying once it no longer leads', async () => {
    const { guardian, passes } = guardianFailing(Infinity);
    const job = blockWatcherJob({
      bus,
      chain,
      onDevnet: false,
      guardian,
      notifier,
      log: pino({ level: 'silent' }),
      retryMs: 10,
    });
    job.start();
    await until(() => passes.tried >= 2);
    job.stop();
    const tried = passes.tried;
    await new Promise((r) => setTimeout(r, 50));
    expect(passes.tried).toBe(tried);
  });
});

// GUARDIAN_NETWORK=local on a real network: the start's reindex of an empty database runs before
// main.ts starts the embedded guardians, so every network vault is "not rebuilt" then. Once they are
// ready, main.ts runs the reindex again (startup.ts reindexNotRebuilt) for those vaults, under the
// cluster's exclusive('startup') as the first: what these unit tests check, with the reindex itself
// injected (operator/reindex.test.ts and the rotation test run the real one).
import { describe, expect, it } from 'vitest';
import type { Exclusive } from '../src/cluster';
import type { ReindexResult } from '../src/operator/reindex';
import { reindexNotRebuilt } from '../src/startup';

const result = (over: Partial<ReindexResult> = {}): ReindexResult => ({
  restored: [],
  keyUnknown: [],
  leavesUnknown: [],
  skipped: [],
  ...over,
});

/** One lock per name, in this process, as the cluster's exclusive holds one across instances. */
function localExclusive(): { exclusive: Exclusive; names: string[] } {
  const tails = new Map<string, Promise<unknown>>();
  const names: string[] = [];
  const exclusive: Exclusive = (name, work) => {
    names.push(name);
    const run = (tails.get(name) ?? Promise.resolve()).then(work);
    tails.set(
      name,
      run.catch(() => undefined),
    );
    return run;
  };
  return { exclusive, names };
}

describe('the reindex after the embedded guardians are ready', () => {
  it('runs nothing when the database was not empty, or when every vault was rebuilt', async () => {
    const { exclusive, names } = localExclusive();
    let runs = 0;
    const again = () => (runs++, Promise.resolve(result()));
    expect(await reindexNotRebuilt(null, { exclusive, again })).toBeNull();
    const allRebuilt = result({ restored: ['a'], keyUnknown: ['b'] });
    expect(await reindexNotRebuilt(allRebuilt, { exclusive, again })).toBeNull();
    expect(runs).toBe(0);
    expect(names).toEqual([]);
  });

  it("runs the reindex again for the vaults the guardians were missing for, after another instance's start", async () => {
    const { exclusive, names } = localExclusive();
    const order: string[] = [];
    // Another instance holds the startup lock (its own first reindex) a while.
    let release!: () => void;
    const other = exclusive('startup', async () => {
      order.push('other start');
      await new Promise<void>((r) => (release = r));
      order.push('other done');
    });
    const first = result({
      restored: [],
      leavesUnknown: [{ vaultId: 'v1', problem: 'guardian-1: unreachable (ECONNREFUSED)' }],
    });
    const second = result({ restored: ['v1'] });
    const pending = reindexNotRebuilt(first, {
      exclusive,
      again: async () => {
        order.push('again');
        return second;
      },
    });
    await new Promise((r) => setTimeout(r, 20));
    expect(order).toEqual(['other start']);
    release();
    expect(await pending).toBe(second);
    await other;
    expect(order).toEqual(['other start', 'other done', 'again']);
    expect(names).toEqual(['startup', 'startup']);
  });
});

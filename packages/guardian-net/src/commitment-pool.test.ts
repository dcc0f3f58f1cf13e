// The coordinator's pool of preprocessed commitments, against a guardian stand-in that counts what it
// was asked: filled to its target, taken oldest first and each once, refilled in the background
// below its low mark, emptied when the guardian restarted (another epoch, or `drop`), commitments
// too old not used, and a guardian that cannot be reached retried with a back-off.
import { afterEach, describe, expect, it } from 'vitest';
import type { NonceCommitments } from '@noble/curves/abstract/frost.js';
import { CommitmentPool, type FetchBatch } from './commitment-pool';
import type { Member } from './guardian-set';

const members: Member[] = [1, 2].map((id) => ({
  id,
  name: `guardian-${id}`,
  identityKey: String(id).repeat(64),
  url: `http://127.0.0.1:${40_000 + id}`,
}));

/** A guardian stand-in: numbered commitments, an epoch a test can change, failures on demand. */
function guardians() {
  const state = { epoch: 'e1', next: 0, asked: [] as number[], down: false };
  const fetch: FetchBatch = (m, count) => {
    state.asked.push(count);
    if (state.down) return Promise.reject(new Error('unreachable'));
    const commitments = Array.from({ length: count }, () => {
      const n = state.next++;
      return { identifier: String(m.id), hiding: Uint8Array.of(n), binding: Uint8Array.of(n) };
    });
    return Promise.resolve({ epoch: state.epoch, commitments });
  };
  return { state, fetch };
}

const no = (c: NonceCommitments | undefined) => c?.hiding[0];
const settle = () => new Promise((r) => setTimeout(r, 5));
const pools: CommitmentPool[] = [];
afterEach(() => pools.splice(0).forEach((p) => p.close()));

function pool(fetch: FetchBatch, options: ConstructorParameters<typeof CommitmentPool>[2] = {}) {
  const p = new CommitmentPool(members, fetch, options);
  pools.push(p);
  return p;
}

describe('the coordinator’s commitment pool', () => {
  it('fills to its target, gives each commitment once, oldest first, and refills below its low mark', async () => {
    const g = guardians();
    const p = pool(g.fetch, { target: 4, low: 2 });
    await p.fill();
    expect(p.size(1)).toBe(4);
    expect(p.size(2)).toBe(4);
    const first = [no(p.take(1)), no(p.take(1))];
    expect(first[0]).toBeLessThan(first[1]!);
    expect(p.size(1)).toBe(2);
    g.state.asked = [];
    p.take(1); // below the low mark: a refill of the missing ones starts
    await settle();
    expect(g.state.asked).toEqual([3]);
    expect(p.size(1)).toBe(4);
    // Every commitment handed out is distinct.
    const seen = new Set<number>(first as number[]);
    for (let i = 0; i < 20; i++) {
      const n = no(p.take(1))!;
      expect(seen.has(n)).toBe(false);
      seen.add(n);
      await settle();
    }
  });

  it('gives back a commitment never put in a list, first in line', async () => {
    const g = guardians();
    const p = pool(g.fetch, { target: 3, low: 1 });
    await p.fill();
    const c = p.take(2)!;
    p.giveBack(2, c);
    expect(no(p.take(2))).toBe(no(c));
  });

  it('empties a guardian’s pool when it restarted: a batch of another epoch, or a drop', async () => {
    const g = guardians();
    const p = pool(g.fetch, { target: 4, low: 4 });
    await p.fill();
    g.state.epoch = 'e2'; // it restarted
    const old = no(p.take(1)); // one of the first epoch; the refill brings the new epoch's
    await settle();
    expect(p.size(1)).toBe(4);
    // Only the new epoch's commitments are left.
    const left = [1, 2, 3, 4].map(() => no(p.take(1))!);
    expect(left.every((n) => n > old!)).toBe(true);
    await settle();
    p.drop(2);
    expect(p.size(2)).toBe(0);
    await settle();
    expect(p.size(2)).toBe(4);
  });

  it('does not use a commitment older than its maximum age', async () => {
    const g = guardians();
    let now = 1_000_000;
    const p = pool(g.fetch, { target: 2, low: 0, maxAgeMs: 60_000, clock: () => now });
    await p.fill();
    now += 60_001;
    expect(p.take(1)).toBeUndefined();
  });

  it('retries an unreachable guardian with a back-off, and fills once it answers', async () => {
    const g = guardians();
    g.state.down = true;
    const p = pool(g.fetch, { target: 2, retryMs: 20 });
    await p.fill();
    expect(p.size(1)).toBe(0);
    expect(p.take(1)).toBeUndefined(); // the signing falls back to two rounds
    g.state.down = false;
    await new Promise((r) => setTimeout(r, 60));
    expect(p.size(1)).toBe(2);
  });
});

// The scheduler's `retry` and `blocked`. `retry`: a guardian that could not sign with the preprocessed commitment it was
// given in a session (it restarted) costs that session, not its place in the signing: it is asked
// for a fresh commitment and the signing may take one session more for it, once; a second time it
// is excluded. The bound on sessions otherwise stands (roast.test.ts). `blocked`: when the coordinator
// asks the guardians it has not asked for their decision.
import { describe, expect, it } from 'vitest';
import { RoastScheduler, type RoastAction } from './roast';

const kinds = (actions: RoastAction<string>[]) => actions.map((a) => a.kind);

function started(actions: RoastAction<string>[]) {
  const start = actions.find((a) => a.kind === 'start');
  return start?.kind === 'start' ? start : undefined;
}

describe('ROAST with preprocessed commitments: retry', () => {
  it('gives a restarted guardian a fresh commitment and one more session, once', () => {
    const s = new RoastScheduler<string>({ ids: [1, 2, 3], t: 2, firstSlot: 1 });
    for (const id of [1, 2, 3]) s.approved(id, 0, `c${id}`);
    const first = started(s.take(0))!;
    expect(first.members.map((m) => m.guardian)).toEqual([1, 2]);
    expect(s.maxSessions).toBe(2);
    s.retry(1, 'no signature share: nonce-unavailable');
    expect(s.maxSessions).toBe(3);
    expect(s.exclusions).toEqual([]);
    // Its fresh commitment is asked for under its next slot; guardian 2 answered well meanwhile.
    const next = s.take(1);
    expect(next).toContainEqual({ kind: 'commit', guardian: 1, slot: 2 });
    s.shareIn(1, 2, 1);
    expect(kinds(s.take(2))).toContain('verify');
    s.verified(1, new Map([[2, true]]));
    s.committed(1, 2, 'c1-fresh', 3);
    const second = started(s.take(3))!;
    expect(second.session).toBe(2);
    expect(second.members.map((m) => m.commitment)).toContain('c1-fresh');
    // A second failure of its commitment in the same signing excludes it.
    s.retry(1, 'no signature share: nonce-unavailable');
    expect(s.exclusions).toEqual([
      { guardian: 1, cause: 'bad-commitment', reason: 'no signature share: nonce-unavailable' },
    ]);
  });

  it('ignores a retry of a guardian that is in no session', () => {
    const s = new RoastScheduler<string>({ ids: [1, 2, 3], t: 2, firstSlot: 1 });
    s.approved(1, 0, 'c1');
    s.retry(1, 'late');
    expect(s.maxSessions).toBe(2);
    expect(s.exclusions).toEqual([]);
  });
});

describe('ROAST with preprocessed commitments: blocked', () => {
  it('is blocked once a member is out and fewer than t others are free of a silent session', () => {
    const s = new RoastScheduler<string>({ ids: [1, 2, 3], t: 2, firstSlot: 1 });
    for (const id of [1, 2, 3]) s.approved(id, 0, `c${id}`);
    started(s.take(0));
    // Guardians 1 and 2 asked, 3 waiting in the pool: not blocked, only waiting.
    expect(s.blocked).toBe(false);
    // 2 refuses while 1 is silent: only 3 is free, no session can start.
    s.failed(2, 'refused', 'policy');
    s.take(1);
    expect(s.blocked).toBe(true);
  });

  it('is not blocked when a member is out but t others can form the next session', () => {
    const s = new RoastScheduler<string>({ ids: [1, 2, 3], t: 2, firstSlot: 1 });
    for (const id of [1, 2, 3]) s.approved(id, 0, `c${id}`);
    started(s.take(0));
    s.shareIn(1, 1, 1);
    s.failed(2, 'unreachable', 'unreachable (ECONNRESET)');
    s.take(2);
    expect(s.blocked).toBe(false);
  });
});

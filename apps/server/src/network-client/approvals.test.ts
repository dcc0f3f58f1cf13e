// Step 4's board across the sessions of one request, and the attempt numbers of repeated signings.
import { describe, expect, it } from 'vitest';
import { approvalsSchema } from '@unit/protocol/wire';
import { ApprovalBoard } from './approvals';
import { attemptsPerSigning, MAX_ATTEMPT } from '@unit/guardian-net';
import { ATTEMPTS_PER_SIGNING, firstAttempt } from './network-signer';

const members = [1, 2, 3].map((id) => ({ id, name: `guardian-${id}` }));

const asked = (guardian: number) => ({ kind: 'asked', guardian }) as const;
const yes = (guardian: number) =>
  ({ kind: 'decision', guardian, approved: true, reason: null }) as const;

/** Each guardian asked in each of `sessions` sessions, as the two-round path asks them all. */
function twoRound(board: ApprovalBoard, sessions: number): void {
  for (let s = 0; s < sessions; s++) for (const m of members) board.record(asked(m.id));
}

describe('the approvals board', () => {
  it('counts a guardian as approved only once it approved every session it was asked in', () => {
    const board = new ApprovalBoard(members, 2);
    twoRound(board, 2);
    expect(board.snapshot()).toEqual({
      approved: 0,
      needed: 2,
      total: 3,
      guardians: members.map((m) => ({ ...m, state: 'pending' })),
    });
    board.record(yes(1));
    expect(board.snapshot().guardians[0]!.state).toBe('pending');
    board.record(yes(1));
    expect(board.snapshot()).toMatchObject({ approved: 1 });
    expect(board.snapshot().guardians[0]!.state).toBe('approved');
  });

  it('keeps a guardian’s first refusal, tells unreachable from refused, and names them', () => {
    const board = new ApprovalBoard(members, 2);
    twoRound(board, 1);
    board.record(yes(1));
    board.record({ kind: 'decision', guardian: 2, approved: false, reason: 'price too far' });
    board.record({
      kind: 'excluded',
      attempt: 1,
      guardian: 2,
      reason: 'bad signature share',
      cause: 'bad-share',
    });
    board.record({
      kind: 'decision',
      guardian: 3,
      approved: false,
      reason: 'unreachable (ECONNREFUSED)',
    });
    const snapshot = approvalsSchema.parse(board.snapshot());
    expect(snapshot.guardians.map((g) => [g.state, g.reason])).toEqual([
      ['approved', undefined],
      ['refused', 'price too far'],
      ['unreachable', 'unreachable (ECONNREFUSED)'],
    ]);
    expect(board.refusalMessage()).toBe(
      '2 of 3 guardians refused this request. guardian-2: price too far; ' +
        'guardian-3: unreachable (ECONNREFUSED)',
    );
  });

  it('marks an approver left out of the signing as excluded, and the silent as unreachable', () => {
    const board = new ApprovalBoard(members, 2);
    twoRound(board, 1);
    board.record(yes(1));
    board.record(yes(2));
    board.record({
      kind: 'excluded',
      attempt: 1,
      guardian: 2,
      reason: 'no signature share: timed out',
      cause: 'stalled',
    });
    board.giveUp('no answer within 20 s');
    expect(board.snapshot().guardians.map((g) => g.state)).toEqual([
      'approved',
      'excluded',
      'unreachable',
    ]);
  });

  it('in one round trip: a guardian the sessions did not ask is never unreachable, even when time runs out', () => {
    // A borrow's two sessions, each over preprocessed commitments of guardians 1 and 2 only.
    const board = new ApprovalBoard(members, 2);
    for (const id of [1, 2, 1, 2]) board.record(asked(id));
    board.record(yes(1));
    board.record(yes(2));
    board.record(yes(1));
    // Guardian 2 has not answered its second session when the network's time runs out.
    board.giveUp('no answer within 20 s');
    const { guardians, approved } = approvalsSchema.parse(board.snapshot());
    expect(guardians.map((g) => [g.state, g.reason])).toEqual([
      ['approved', undefined],
      ['unreachable', 'no answer within 20 s'],
      ['pending', undefined],
    ]);
    expect(approved).toBe(1);
    expect(board.refusalMessage()).toBe(
      '1 of 3 guardians refused this request. guardian-2: no answer within 20 s',
    );
  });

  it('in one round trip: a guardian asked in one session of two counts as approved once it approved it', () => {
    // The vault input's session signed by 1 and 2; the treasury's, after 2 stalled, by 1 and 3.
    const board = new ApprovalBoard(members, 2);
    board.record(asked(1));
    board.record(asked(2));
    board.record(asked(1));
    board.record(asked(3));
    for (const id of [1, 2, 1]) board.record(yes(id));
    expect(board.snapshot().guardians.map((g) => g.state)).toEqual([
      'approved',
      'approved',
      'pending',
    ]);
    board.record(yes(3));
    expect(board.snapshot()).toMatchObject({ approved: 3 });
  });

  it('clips a reason to the wire’s 300 characters', () => {
    const board = new ApprovalBoard(members, 2);
    board.record({ kind: 'decision', guardian: 2, approved: false, reason: 'x'.repeat(5_000) });
    expect(() => approvalsSchema.parse(board.snapshot())).not.toThrow();
  });
});

describe('the first attempt of a signing', () => {
  it('differs for every 2.5 s step within a request’s lifetime, inside 1..100,000 with room for ROAST', () => {
    const start = 1_800_000_000_000;
    const seen = new Set<number>();
    for (let step = 0; step < 600 / 2.5 + 1; step++) {
      const first = firstAttempt(start + step * 2_500);
      expect(first).toBeGreaterThanOrEqual(1);
      expect(first + ATTEMPTS_PER_SIGNING - 1).toBeLessThanOrEqual(MAX_ATTEMPT);
      expect((first - 1) % ATTEMPTS_PER_SIGNING).toBe(0);
      seen.add(first);
    }
    expect(seen.size).toBe(241);
    // Enough for every guardian of a 15-member set whatever n - t of them do.
    expect(ATTEMPTS_PER_SIGNING).toBeGreaterThanOrEqual(attemptsPerSigning({ n: 15, t: 1 }));
  });
});

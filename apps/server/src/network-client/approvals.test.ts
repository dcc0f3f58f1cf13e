// Step 4's board across the sessions of one request, and the attempt numbers of repeated signings.
import { describe, expect, it } from 'vitest';
import { approvalsSchema } from '@unit/protocol/wire';
import { ApprovalBoard } from './approvals';
import { attemptsPerSigning, MAX_ATTEMPT } from '@unit/guardian-net';
import { ATTEMPTS_PER_SIGNING, firstAttempt } from './network-signer';

const members = [1, 2, 3].map((id) => ({ id, name: `guardian-${id}` }));

describe('the approvals board', () => {
  it('counts a guardian as approved only once it approved every session', () => {
    const board = new ApprovalBoard(members, 2, 2);
    expect(board.snapshot()).toEqual({
      approved: 0,
      needed: 2,
      total: 3,
      guardians: members.map((m) => ({ ...m, state: 'pending' })),
    });
    board.record({ kind: 'decision', guardian: 1, approved: true, reason: null });
    expect(board.snapshot().guardians[0]!.state).toBe('pending');
    board.record({ kind: 'decision', guardian: 1, approved: true, reason: null });
    expect(board.snapshot()).toMatchObject({ approved: 1 });
    expect(board.snapshot().guardians[0]!.state).toBe('approved');
  });

  it('keeps a guardian’s first refusal, tells unreachable from refused, and names them', () => {
    const board = new ApprovalBoard(members, 2, 1);
    board.record({ kind: 'decision', guardian: 1, approved: true, reason: null });
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
    const board = new ApprovalBoard(members, 2, 1);
    board.record({ kind: 'decision', guardian: 1, approved: true, reason: null });
    board.record({ kind: 'decision', guardian: 2, approved: true, reason: null });
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

  it('clips a reason to the wire’s 300 characters', () => {
    const board = new ApprovalBoard(members, 2, 1);
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

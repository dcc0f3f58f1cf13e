import { describe, expect, it } from 'vitest';
import type { Approvals } from '@unit/protocol/wire';
import {
  approvalsAnnouncement,
  approvalsCount,
  approvalsDone,
  approvalsNeed,
  decisionWords,
  readApprovals,
  shownState,
} from './approvals';

const NONCE = 'ab'.repeat(16);

const approvals: Approvals = {
  approved: 1,
  needed: 2,
  total: 3,
  guardians: [
    { id: 1, name: 'guardian-1', state: 'approved' },
    { id: 2, name: 'guardian-2', state: 'refused', reason: 'my price is 10% under the quote' },
    { id: 3, name: 'guardian-3', state: 'pending' },
  ],
};

describe('approvals of a vault.progress notification', () => {
  it('reads the approvals of the request it watches', () => {
    expect(readApprovals({ request: NONCE, step: 4, approvals }, NONCE)).toEqual(approvals);
  });

  it('reads nothing from a step without approvals (the server signing alone)', () => {
    expect(readApprovals({ request: NONCE, step: 4 }, NONCE)).toBeNull();
  });

  it("reads nothing from another request's notification", () => {
    expect(readApprovals({ request: 'cd'.repeat(16), step: 4, approvals }, NONCE)).toBeNull();
  });

  it('refuses approvals that are not the contract', () => {
    const bad: unknown[] = [
      { ...approvals, approved: -1 },
      { ...approvals, needed: 0 },
      { ...approvals, total: 1.5 },
      { ...approvals, guardians: 'all' },
      { ...approvals, guardians: [{ id: 1, name: 'g', state: 'maybe' }] },
      { ...approvals, guardians: [{ id: 0, name: 'g', state: 'approved' }] },
      { ...approvals, guardians: [{ id: 1, name: 'g'.repeat(65), state: 'approved' }] },
      { ...approvals, guardians: [{ id: 1, name: 'g', state: 'refused', reason: 7 }] },
      {
        ...approvals,
        guardians: [{ id: 1, name: 'g', state: 'refused', reason: 'r'.repeat(301) }],
      },
      {
        ...approvals,
        guardians: Array.from({ length: 256 }, (_, i) => ({
          id: 1,
          name: `g${i}`,
          state: 'pending',
        })),
      },
    ];
    for (const value of bad)
      expect(readApprovals({ request: NONCE, step: 4, approvals: value }, NONCE)).toBeNull();
  });

  it('says the count as the tracker words it, and whether it is enough', () => {
    expect(approvalsCount({ ...approvals, approved: 2 })).toBe('2 of 3 guardians approved');
    expect(approvalsDone(approvals)).toBe(false);
    expect(approvalsNeed(approvals)).toBe('2 needed');
    expect(approvalsDone({ ...approvals, approved: 2 })).toBe(true);
    expect(approvalsNeed({ ...approvals, approved: 3 })).toBe('enough to sign');
    expect(approvalsCount({ ...approvals, approved: 1, needed: 1, total: 1 })).toBe(
      '1 of 1 guardian approved',
    );
  });

  it('puts every state in words', () => {
    expect(
      (['approved', 'refused', 'pending', 'unreachable', 'excluded'] as const).map((state) =>
        decisionWords(state),
      ),
    ).toEqual(['approved', 'refused', 'waiting', 'unreachable', 'left out']);
  });

  it('never says waiting once the request is over: a guardian still pending gave no answer', () => {
    expect(decisionWords('pending', true)).toBe('no answer');
    expect(shownState('pending', true)).toBe('no-answer');
    // signed by the first t: the one that had not answered was simply not needed
    expect(decisionWords('pending', true, true)).toBe('not needed');
    expect(shownState('pending', true, true)).toBe('not-needed');
    expect(decisionWords('pending', false, true)).toBe('waiting');
    expect(shownState('pending', false)).toBe('pending');
    // The others' states are what they were.
    for (const state of ['approved', 'refused', 'unreachable', 'excluded'] as const) {
      expect(decisionWords(state, true)).toBe(decisionWords(state));
      expect(shownState(state, true)).toBe(state);
    }
    expect(approvalsNeed(approvals, true)).toBe('2 were needed');
    expect(approvalsNeed({ ...approvals, approved: 2 }, true)).toBe('enough to sign');
  });

  it('announces one sentence per phase, whatever the count within it', () => {
    const at = (approved: number) => ({ ...approvals, approved });
    expect(approvalsAnnouncement(null, false)).toBe('');
    expect(approvalsAnnouncement(at(0), false)).toBe('Waiting for 2 of 3 guardians to approve.');
    expect(approvalsAnnouncement(at(1), false)).toBe(approvalsAnnouncement(at(0), false));
    expect(approvalsAnnouncement(at(2), false)).toBe('Enough guardians approved to sign.');
    expect(approvalsAnnouncement(at(3), false)).toBe(approvalsAnnouncement(at(2), false));
    expect(approvalsAnnouncement(at(3), true)).toBe('Enough guardians approved to sign.');
    expect(approvalsAnnouncement(at(1), true)).toBe('Too few guardians approved to sign.');
  });
});

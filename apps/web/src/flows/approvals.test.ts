import { describe, expect, it } from 'vitest';
import type { Approvals } from '@unit/protocol/wire';
import {
  approvalsCount,
  approvalsDone,
  approvalsNeed,
  decisionWords,
  readApprovals,
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

  it('says the count as issue 20 words it, and whether it is enough', () => {
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
      (['approved', 'refused', 'pending', 'unreachable', 'excluded'] as const).map(decisionWords),
    ).toEqual(['approved', 'refused', 'waiting', 'unreachable', 'left out']);
  });
});

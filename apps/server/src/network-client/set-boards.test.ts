// Step 4 for a request signed by two guardian sets after a rotation (a moved vault's borrow: its
// vault input set 2's, its treasury input set 1's): each set counts its own sessions and members.
import { describe, expect, it } from 'vitest';
import type { GuardianSet } from '@unit/guardian-net';
import { SetBoards } from './set-boards';

const setOf = (version: number, names: string[]) =>
  ({
    version,
    t: 2,
    n: names.length,
    members: names.map((name, i) => ({ id: i + 1, name })),
  }) as unknown as GuardianSet;

const set1 = setOf(1, ['guardian-1', 'guardian-2', 'guardian-3']);
const set2 = setOf(2, ['guardian-1', 'guardian-2', 'guardian-3b']);
const yes = (guardian: number) =>
  ({ kind: 'decision', guardian, approved: true, reason: null }) as const;
/** Each member of `set` asked in one session, as the two-round path asks them all at its start. */
const askAll = (boards: SetBoards, set: GuardianSet) => {
  for (const m of set.members) boards.record(set, { kind: 'asked', guardian: m.id });
};

describe('step 4 across two guardian sets', () => {
  it('is one set’s board when every session is that set’s', () => {
    const boards = new SetBoards([set1, set1]);
    askAll(boards, set1);
    askAll(boards, set1);
    boards.record(set1, yes(1));
    expect(boards.snapshot()).toMatchObject({ approved: 0, needed: 2, total: 3 });
    boards.record(set1, yes(1));
    expect(boards.snapshot()).toMatchObject({ approved: 1, needed: 2, total: 3 });
    // An event of a set with no session here changes nothing.
    expect(boards.record(set2, yes(2))).toBe(false);
  });

  it('shows the set furthest from its quorum, each counting its own sessions', () => {
    const boards = new SetBoards([set2, set1]);
    askAll(boards, set2);
    askAll(boards, set1);
    // Guardian 1 of set 2 and of set 1 are one process, but two sessions of two sets.
    boards.record(set2, yes(1));
    boards.record(set2, yes(3));
    expect(boards.snapshot()).toMatchObject({ approved: 0 });
    expect(boards.snapshot().guardians.map((g) => g.name)).toEqual(set1.members.map((m) => m.name));
    boards.record(set1, yes(1));
    expect(boards.snapshot()).toMatchObject({ approved: 1 });
    boards.record(set1, yes(2));
    const done = boards.snapshot();
    expect(done.approved).toBe(2);
  });

  it('names the refusing set in a refusal that spans two sets', () => {
    const boards = new SetBoards([set2, set1]);
    askAll(boards, set2);
    askAll(boards, set1);
    boards.record(set2, yes(1));
    boards.record(set2, yes(2));
    boards.record(set1, yes(1));
    boards.record(set1, { kind: 'decision', guardian: 2, approved: false, reason: 'no price' });
    boards.giveUp('no answer within 20 s');
    expect(boards.refusalMessage()).toBe(
      'Guardian set 1: 2 of 3 guardians refused this request. guardian-2: no price; ' +
        'guardian-3: no answer within 20 s',
    );
  });
});

// The rules of a membership change and the check of an operator's approval, as pure functions.
import { describe, expect, it } from 'vitest';
import {
  approvalProblem,
  approvalRecord,
  membershipRuleProblem,
  rosterDigest,
  type ApprovalAsk,
} from './approval';
import type { GuardianSetBody, Member } from './guardian-set';
import { newIdentity } from './identity';

const coordinator = { name: 'coordinator', identityKey: newIdentity().publicKey };
const member = (id: number, key = newIdentity().publicKey): Member => ({
  id,
  name: `guardian-${id}`,
  identityKey: key,
  url: `http://127.0.0.1:${7400 + id}`,
});
const previous = { version: 1, groupKey: newIdentity().publicKey, digest: '11'.repeat(32) };
const current: GuardianSetBody = {
  kind: 'unit/guardian-set',
  version: 1,
  t: 3,
  n: 5,
  members: [1, 2, 3, 4, 5].map((id) => member(id)),
  coordinators: [coordinator],
};
/** The next roster: the current members but `fresh` new ones at the end, size n, threshold t. */
function next(fresh: number, n = current.n, t = current.t): GuardianSetBody {
  const kept = current.members.slice(0, n - fresh);
  const added = Array.from({ length: fresh }, (_, i) => member(n - fresh + i + 1));
  return { ...current, version: 2, t, n, members: [...kept, ...added], previous };
}

describe('the rules no approval lifts', () => {
  it('the threshold never goes down', () => {
    expect(membershipRuleProblem(current, next(1, 5, 2))).toMatch(/go down from 3 to 2/);
    expect(membershipRuleProblem(current, next(1, 5, 3))).toBeNull();
    expect(membershipRuleProblem(current, next(1, 5, 4))).toBeNull();
  });

  it('fewer than the next t members are new', () => {
    expect(membershipRuleProblem(current, next(2))).toBeNull();
    expect(membershipRuleProblem(current, next(3))).toMatch(/3 of its members would be new/);
    // Added seats count as new: 5 to 7 with the same t adds three new keys.
    expect(membershipRuleProblem(current, next(2, 7))).toBeNull();
    expect(membershipRuleProblem(current, next(3, 7))).toMatch(/as many as its threshold 3/);
    // A member moved to another seat is not new.
    const moved = next(0);
    moved.members = [...moved.members].reverse().map((m, i) => ({ ...m, id: i + 1 }));
    expect(membershipRuleProblem(current, moved)).toBeNull();
  });
});

describe('an operator’s approval', () => {
  const me = current.members[0]!;
  const roster = next(1);
  const ask: ApprovalAsk = {
    change: 'rotation',
    setVersion: 1,
    identityKey: me.identityKey,
    roster,
  };
  const found = (record: unknown) => [{ file: 'approvals/x.json', record }];

  it('covers exactly its roster, coordinators included', () => {
    const record = approvalRecord('rotation', 1, me, roster);
    expect(record).toMatchObject({
      kind: 'unit/membership-approval',
      change: 'rotation',
      setVersion: 1,
      nextVersion: 2,
      guardian: { id: 1, identityKey: me.identityKey },
      rosterDigest: rosterDigest(roster),
    });
    expect(approvalProblem(found(record), ask)).toBeNull();
    const coordinators = [coordinator, { name: 'other', identityKey: newIdentity().publicKey }];
    expect(rosterDigest({ ...roster, coordinators })).not.toBe(rosterDigest(roster));
    expect(approvalProblem(found(record), { ...ask, roster: { ...roster, coordinators } })).toMatch(
      /^not approved: .*its coordinators differ/,
    );
  });

  it('is refused when altered, another guardian’s, another change’s, or unreadable', () => {
    const record = approvalRecord('rotation', 1, me, roster);
    const other = { ...roster, t: 4 };
    expect(approvalProblem(found({ ...record, roster: other }), ask)).toMatch(
      /names a digest its roster does not have/,
    );
    const stranger = { ...me, identityKey: newIdentity().publicKey };
    expect(approvalProblem(found(approvalRecord('rotation', 1, stranger, roster)), ask)).toMatch(
      /is for another guardian/,
    );
    expect(approvalProblem(found({ ...record, change: 'refresh' }), ask)).toMatch(
      /approves a refresh, not a rotation/,
    );
    expect(approvalProblem(found({ ...record, kind: 'x' }), ask)).toMatch(/not a membership/);
    expect(approvalProblem([{ file: 'approvals/y.json', error: 'is too large' }], ask)).toMatch(
      /approvals\/y\.json is too large/,
    );
    expect(approvalProblem([], ask)).toMatch(/^not approved: this guardian’s operator has not/);
  });
});

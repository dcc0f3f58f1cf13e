// `npm run guardian -- approve --dir <this guardian's dir> --roster <roster.json> [--yes]`: run by
// a guardian's own operator on the guardian's own machine. It prints exactly what the roster
// changes against the set this guardian is on, and with --yes records the approval of exactly that
// roster in the guardian's own directory (approval.ts, approval-files.ts); the guardian joins the
// rotation only then. The same function records the approvals of the embedded network, whose one
// operator owns every guardian's directory (`rotate --approve-local`).
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import {
  approvalRecord,
  isRefresh,
  MEMBERSHIP_CHANGES,
  membershipRuleProblem,
  newMembers,
  rosterDigest,
  type Approval,
  type MembershipChange,
} from './approval';
import { writeApproval } from './approval-files';
import { approveFirstRoster, approveNewMember } from './approve-first';
import { parseSetBody, type GuardianSet, type GuardianSetBody, type Member } from './guardian-set';
import { checkFollows } from './handover';
import { loadIdentity } from './identity';
import { loadInstalledSets } from './set-files';

/** What each kind of change does to the group key, as the operator reads it. */
const CHANGE_TITLE: Record<MembershipChange, string> = {
  rotation: 'Rotation (a new group key; every vault moves)',
  reshare: 'Resharing (the same group key; no vault moves)',
  repair: 'Repair (the same group key and verification shares; one seat’s lost share rebuilt)',
  dkg: 'First DKG (a new group key)',
  refresh: 'Refresh (the same group key and members, new shares)',
};

const seat = (m: Member) =>
  `guardian ${m.id} (${m.name}) identity key ${m.identityKey} at ${m.url}`;

/** The lines an operator reads before approving: every change from `current` to `roster`. */
export function describeChange(
  current: GuardianSet,
  roster: GuardianSetBody,
  change: MembershipChange = 'rotation',
): string[] {
  const keys = (s: GuardianSetBody) => new Set(s.members.map((m) => m.identityKey));
  const kept = roster.members.filter((m) => keys(current).has(m.identityKey));
  const removed = current.members.filter((m) => !keys(roster).has(m.identityKey));
  const coordinators = (s: GuardianSetBody) =>
    s.coordinators.map((c) => `${c.name} identity key ${c.identityKey}`).join('; ') || 'none';
  const before = (m: Member) => current.members.find((c) => c.identityKey === m.identityKey)!;
  const moved = (m: Member) =>
    before(m).id !== m.id || before(m).url !== m.url
      ? ` (was guardian ${before(m).id} at ${before(m).url})`
      : '';
  const same = coordinators(current) === coordinators(roster);
  return [
    `${CHANGE_TITLE[change]} of guardian set ${current.version} to set ${roster.version}, roster digest ${rosterDigest(roster)}:`,
    `  version: ${current.version} -> ${roster.version}`,
    `  threshold t: ${current.t} -> ${roster.t}`,
    `  size n: ${current.n} -> ${roster.n}`,
    ...kept.map((m) => `  kept:    ${seat(m)}${moved(m)}`),
    ...newMembers(current, roster).map((m) => `  added:   ${seat(m)}`),
    ...removed.map((m) => `  removed: ${seat(m)}`),
    `  coordinators before: ${coordinators(current)}`,
    `  coordinators after:  ${coordinators(roster)}${same ? ' (unchanged)' : ' (CHANGED)'}`,
  ];
}

export type { Approval } from './approval';

/**
 * The approval by the guardian whose directory is `dir` of `roster`: checked against the newest set
 * the directory holds and its identity key, refused (an Error with the reason) if the roster does
 * not follow that set, does not keep this guardian's seat, or breaks a rule no approval lifts.
 * Written into `<dir>/approvals/` only with `write`.
 */
export function approveRoster(
  dir: string,
  roster: GuardianSetBody,
  write: boolean,
  change: MembershipChange = 'rotation',
): Approval {
  const identity = loadIdentity(join(dir, 'identity.json'));
  const current = loadInstalledSets(dir).at(-1)?.set;
  if (!current && change === 'reshare') return approveNewMember(dir, roster, write);
  if (!current) throw new Error(`${dir} holds no installed guardian set and share.`);
  const me = current.members.find((m) => m.identityKey === identity.publicKey);
  if (!me) throw new Error(`The guardian of ${dir} is not a member of its set ${current.version}.`);
  if (roster.frost || roster.groupKey) throw new Error('A roster has no group key yet.');
  try {
    checkFollows(roster, current);
  } catch (e) {
    throw new Error(`This roster cannot be approved: ${(e as Error).message}.`);
  }
  if (roster.members[me.id - 1]?.identityKey !== identity.publicKey)
    throw new Error(
      `This roster cannot be approved: it does not keep guardian ${me.id} in its seat with this guardian's identity key.`,
    );
  const lines = [
    `Guardian ${me.id} of set ${current.version} (${dir}).`,
    ...describeChange(current, roster, change),
  ];
  const refresh = isRefresh(current, roster);
  if (change === 'refresh' && !refresh)
    throw new Error(
      `${lines.join('\n')}\nThis roster changes the members, t, n or coordinators, so it is no refresh; a change of members with the same group key is approved with --kind reshare.`,
    );
  if (change === 'reshare' && refresh)
    throw new Error(
      `${lines.join('\n')}\nThis roster keeps every member in its seat: it deals every share again, and is approved with --kind refresh.`,
    );
  const rule = membershipRuleProblem(current, roster);
  if (rule) throw new Error(`${lines.join('\n')}\nThis roster cannot be approved: ${rule}.`);
  const record = approvalRecord(change, current.version, me, roster);
  return { id: me.id, lines, record, ...(write ? { path: writeApproval(dir, record) } : {}) };
}

/** The command: prints the change; records it only with --yes. */
export function approve(args: string[], out: (line: string) => void): void {
  const { values } = parseArgs({
    args,
    options: {
      dir: { type: 'string' },
      roster: { type: 'string' },
      kind: { type: 'string', default: 'rotation' },
      yes: { type: 'boolean' },
    },
  });
  const change = values.kind as MembershipChange;
  if (!MEMBERSHIP_CHANGES.includes(change))
    throw new Error(`--kind is one of ${MEMBERSHIP_CHANGES.join(', ')}, not ${values.kind}.`);
  if (!values.dir || !values.roster)
    throw new Error('approve needs --dir <this guardian’s directory> and --roster <roster.json>.');
  let roster: GuardianSetBody;
  try {
    roster = parseSetBody(JSON.parse(readFileSync(values.roster, 'utf8')));
  } catch (e) {
    throw new Error(`${values.roster} is not a guardian roster: ${(e as Error).message}.`);
  }
  const dir = resolve(values.dir);
  const approval =
    change === 'dkg'
      ? approveFirstRoster(dir, roster, values.yes === true)
      : approveRoster(dir, roster, values.yes === true, change);
  approval.lines.forEach((line) => out(line));
  if (!approval.path)
    out(
      `Nothing was recorded. To approve exactly this roster as ${change === 'dkg' ? 'the first DKG' : `a ${change}`} for guardian ${approval.id}, run the same command again with --yes.`,
    );
  else
    out(
      change === 'dkg'
        ? `Approved: guardian ${approval.id} will join the first DKG of exactly this roster; recorded in ${approval.path}.`
        : `Approved: guardian ${approval.id} will join the ${change} to set ${roster.version} for exactly this roster; recorded in ${approval.path}.`,
    );
}

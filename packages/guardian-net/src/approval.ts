// A membership change (the first DKG, a rotation, a resharing, a repair or a refresh) needs each
// guardian's own operator: a record of that exact roster, written on the guardian's machine by the
// `approve` command (approve.ts) into its own directory, and rules no approval lifts. A guardian
// checks both itself (handover.ts) on every `rotate/roster` and `set/handover`, whatever the
// coordinator sends: the coordinator's word is never enough (docs/protocol.md, "Who can change
// the guardian set"). Pure functions here; the files are approval-files.ts.
import { canonicalJson, taggedDigest, utf8ToBytes, bytesToHex } from './canonical';
import {
  parseSetBody,
  setBodyJson,
  type Coordinator,
  type GuardianSetBody,
  type Member,
} from './guardian-set';

export const APPROVAL_KIND = 'unit/membership-approval';
/** `dkg` is the network's first roster: the guardian holds no set yet, and it approves a version 0. */
export const MEMBERSHIP_CHANGES = ['dkg', 'rotation', 'reshare', 'repair', 'refresh'] as const;
export type MembershipChange = (typeof MEMBERSHIP_CHANGES)[number];
/** The prefix of every refusal for want of an approval (the CLI tells the operators what to run). */
export const NOT_APPROVED = 'not approved';
const ROSTER_TAG = 'unit/membership-roster';

/** One operator's approval of one roster, as stored in `<guardian dir>/approvals/`. */
export interface ApprovalRecord {
  kind: typeof APPROVAL_KIND;
  change: MembershipChange;
  /** the set the guardian is on, which the change replaces */
  setVersion: number;
  /** the version of the set the change makes (the roster's) */
  nextVersion: number;
  /** the guardian it approves for: its id in the current set and its identity key */
  guardian: { id: number; identityKey: string };
  /** hex of taggedHash("unit/membership-roster", canonical JSON of the roster) */
  rosterDigest: string;
  /** the whole roster approved: members, t, n, coordinators and the set it follows */
  roster: GuardianSetBody;
  approvedAt: string;
}

/** An operator's approval as the `approve` command shows and records it. */
export interface Approval {
  /** the guardian's id in its current set (in the roster, for a first DKG) */
  id: number;
  lines: string[];
  record: ApprovalRecord;
  /** where it was recorded (only when it was written) */
  path?: string;
}

/** An approval file as read from disk: its record, or why it could not be read. */
export interface FoundApproval {
  file: string;
  record?: unknown;
  error?: string;
}

/** The digest an approval names: the whole roster, coordinators and `previous` included. */
export function rosterDigest(roster: GuardianSetBody): string {
  return bytesToHex(taggedDigest(ROSTER_TAG, utf8ToBytes(canonicalJson(setBodyJson(roster)))));
}

/** Members of `next` whose identity key is in no seat of `current`. */
export function newMembers(current: GuardianSetBody, next: GuardianSetBody): Member[] {
  const known = new Set(current.members.map((m) => m.identityKey));
  return next.members.filter((m) => !known.has(m.identityKey));
}

/**
 * The rules no approval lifts, or null: the threshold never goes down, and fewer than the next t
 * members are new (t new keys could sign alone, so whoever chose them would hold the group key).
 */
export function membershipRuleProblem(
  current: GuardianSetBody,
  next: GuardianSetBody,
): string | null {
  if (next.t < current.t)
    return `the threshold would go down from ${current.t} to ${next.t}, and a membership change never lowers it`;
  const fresh = newMembers(current, next).length;
  if (fresh >= next.t)
    return `${fresh} of its members would be new, as many as its threshold ${next.t}, so new members alone could sign; fewer than ${next.t} may be new in one change`;
  return null;
}

const party = (p: Member | Coordinator) =>
  'id' in p ? `${p.id}:${p.name}:${p.identityKey}:${p.url}` : `${p.name}:${p.identityKey}`;

/**
 * Whether `next` deals every share again to exactly the members of `current`: same seats (id,
 * name, identity key, URL), t, n and coordinators. A guardian asks its operator's `refresh`
 * approval for such a roster, and a `reshare` approval for any other that keeps the key.
 */
export function isRefresh(current: GuardianSetBody, next: GuardianSetBody): boolean {
  const shape = (b: GuardianSetBody) =>
    canonicalJson({ t: b.t, n: b.n, members: b.members.map(party), coordinators: b.coordinators.map(party) }); // prettier-ignore
  return shape(current) === shape(next);
}

/** What differs between an approved roster and the one offered, in words. */
export function rosterDifferences(approved: GuardianSetBody, offered: GuardianSetBody): string[] {
  const same = (a: unknown, b: unknown) =>
    canonicalJson(JSON.parse(JSON.stringify(a ?? null))) ===
    canonicalJson(JSON.parse(JSON.stringify(b ?? null)));
  const out: string[] = [];
  if (approved.version !== offered.version) out.push('version');
  if (approved.t !== offered.t) out.push('threshold t');
  if (approved.n !== offered.n) out.push('size n');
  if (!same(approved.members.map(party), offered.members.map(party))) out.push('members');
  if (!same(approved.coordinators.map(party), offered.coordinators.map(party)))
    out.push('coordinators');
  if (!same(approved.previous, offered.previous)) out.push('previous set');
  return out.length > 0 ? out : ['canonical form'];
}

/** The record of `guardian`'s approval of `roster`, made from its current set `setVersion`. */
export function approvalRecord(
  change: MembershipChange,
  setVersion: number,
  guardian: { id: number; identityKey: string },
  roster: GuardianSetBody,
  now = new Date(),
): ApprovalRecord {
  return {
    kind: APPROVAL_KIND,
    change,
    setVersion,
    nextVersion: roster.version,
    guardian: { id: guardian.id, identityKey: guardian.identityKey },
    rosterDigest: rosterDigest(roster),
    roster,
    approvedAt: now.toISOString(),
  };
}

export interface ApprovalAsk {
  change: MembershipChange;
  /** the version of the set this guardian is on */
  setVersion: number;
  identityKey: string;
  roster: GuardianSetBody;
}

/** Why one record does not cover the ask (null: it does). */
function recordProblem(raw: unknown, ask: ApprovalAsk, digest: string): string | null {
  const r = (raw ?? {}) as Partial<ApprovalRecord>;
  if (r.kind !== APPROVAL_KIND) return 'is not a membership approval';
  if (r.change !== ask.change)
    return `approves a ${String(r.change).slice(0, 20)}, not a ${ask.change}`;
  if (r.guardian?.identityKey !== ask.identityKey) return 'is for another guardian';
  let approved: GuardianSetBody;
  try {
    approved = parseSetBody(r.roster);
  } catch (e) {
    return `holds no valid roster (${(e as Error).message})`;
  }
  if (rosterDigest(approved) !== r.rosterDigest) return 'names a digest its roster does not have';
  if (r.setVersion !== ask.setVersion || (approved.previous?.version ?? 0) !== ask.setVersion)
    return `is for a ${ask.change} of set ${String(r.setVersion).slice(0, 12)}, and this guardian is on set ${ask.setVersion}`;
  if (r.nextVersion !== approved.version) return 'names another version than its roster';
  if (r.rosterDigest !== digest)
    return `approves another roster (its ${rosterDifferences(approved, ask.roster).join(', ')} differ)`;
  return null;
}

/**
 * Null when one of `found` is this guardian's operator's approval of exactly `ask.roster`, from
 * the set it is on; else the refusal, starting "not approved", with every file's reason.
 */
export function approvalProblem(found: FoundApproval[], ask: ApprovalAsk): string | null {
  const digest = rosterDigest(ask.roster);
  const reasons: string[] = [];
  for (const f of found) {
    const problem = f.error ?? recordProblem(f.record, ask, digest);
    if (problem === null) return null;
    reasons.push(`${f.file} ${problem}`);
  }
  const what =
    ask.change === 'dkg'
      ? `the ${ask.roster.previous ? `DKG to set ${ask.roster.version}` : 'first DKG'} of this roster (roster digest ${digest})`
      : `the ${ask.change} to set ${ask.roster.version} (roster digest ${digest})`;
  const kind = ask.change === 'rotation' ? '' : ` --kind ${ask.change}`;
  const how = `its operator approves it on the guardian’s own machine with \`npm run guardian -- approve${kind} --dir <its directory> --roster <the roster file>\``;
  return reasons.length === 0
    ? `${NOT_APPROVED}: this guardian’s operator has not approved ${what}; ${how}`
    : `${NOT_APPROVED}: no approval by this guardian’s operator covers ${what}: ${reasons.join('; ')}; ${how}`;
}

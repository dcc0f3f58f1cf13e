// The operator's approval of a network's first roster (`approve --kind dkg`): a guardian made by
// `guardian init` holds no set yet, and joins the first DKG only for the exact roster its own
// operator recorded here (first-roster.ts checks it on every `dkg/roster`). The embedded network's
// one operator records it for each of its guardians through the same function (cli-dkg.ts).
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { approvalProblem, approvalRecord, rosterDigest, type Approval } from './approval';
import { readApprovals, writeApproval } from './approval-files';
import { readPublicPart } from './guardian-init';
import type { GuardianSetBody, Member } from './guardian-set';
import { loadIdentity } from './identity';
import { loadInstalledSets } from './set-files';

const seat = (m: Member) =>
  `guardian ${m.id} (${m.name}) identity key ${m.identityKey} at ${m.url}`;

/** The set a DKG's roster follows: none (0) for a first roster, else the rotation's previous. */
const dkgFrom = (roster: GuardianSetBody) => roster.previous?.version ?? 0;

/** The lines an operator reads before approving a first roster (or a rotation's, as a new member). */
export function describeFirstRoster(roster: GuardianSetBody): string[] {
  const what = roster.previous
    ? `DKG of a rotation to set ${roster.version} (a new group key), joined as a new member,`
    : 'First DKG (a new group key)';
  return [
    `${what} of a ${roster.t}-of-${roster.n} network, roster digest ${rosterDigest(roster)}:`,
    `  threshold t: ${roster.t}`,
    `  size n: ${roster.n}`,
    ...roster.members.map((m) => `  member:  ${seat(m)}`),
    ...roster.coordinators.map((c) => `  coordinator: ${c.name} identity key ${c.identityKey}`),
  ];
}

/**
 * The seat of the guardian of `dir` in `roster`: the member named by its identity key, at the URL
 * of its own public part (when it has one). Refused, saying why, otherwise.
 */
function ownSeat(dir: string, roster: GuardianSetBody, identityKey: string): Member {
  const me = roster.members.find((m) => m.identityKey === identityKey);
  if (!me)
    throw new Error(
      `This roster cannot be approved: it does not name the guardian of ${dir} (identity key ${identityKey}).`,
    );
  const own = readPublicPart(dir);
  if (own && own.url !== me.url)
    throw new Error(
      `This roster cannot be approved: it gives this guardian the URL ${me.url}, but its own is ${own.url}.`,
    );
  return me;
}

/**
 * The approval by the guardian of `dir` of the first roster `roster`: refused (an Error saying why)
 * when the directory already holds a set, the roster is not a first roster, does not name this
 * guardian with its identity key, or gives it another URL than its public part. Written into
 * `<dir>/approvals/` only with `write`.
 */
export function approveFirstRoster(dir: string, roster: GuardianSetBody, write: boolean): Approval {
  const identity = loadIdentity(join(dir, 'identity.json'));
  const installed = loadInstalledSets(dir).at(-1)?.set;
  if (installed)
    throw new Error(
      `${dir} already holds guardian set ${installed.version}; a first DKG is for a guardian with no set. A change of its set is approved with --kind rotation, reshare, repair or refresh.`,
    );
  if (roster.frost || roster.groupKey || (roster.version === 0) !== !roster.previous)
    throw new Error(
      "This roster cannot be approved as a DKG: a first roster is version 0, with no group key and no previous set (a rotation's, which a new member joins, names its previous set).",
    );
  const me = ownSeat(dir, roster, identity.publicKey);
  const lines = [`Guardian ${me.id} of the roster (${dir}).`, ...describeFirstRoster(roster)];
  const record = approvalRecord('dkg', dkgFrom(roster), me, roster);
  return { id: me.id, lines, record, ...(write ? { path: writeApproval(dir, record) } : {}) };
}

/**
 * A new member's approval of a resharing's roster (`approve --kind reshare` in a directory with no
 * set): the roster names its previous set, carries no key, names this guardian with its identity
 * key and its own URL. It joins that resharing, or takes its catch-up, only for exactly this roster
 * (reshare-node.ts); the rules no approval lifts are checked there against the set it follows.
 */
export function approveNewMember(dir: string, roster: GuardianSetBody, write: boolean): Approval {
  const identity = loadIdentity(join(dir, 'identity.json'));
  if (roster.frost || roster.groupKey || !roster.previous)
    throw new Error(
      'This roster cannot be approved as a resharing: it names the set it follows (previous) and carries no group key.',
    );
  const me = ownSeat(dir, roster, identity.publicKey);
  const lines = [
    `Guardian ${me.id} of the roster (${dir}), a new member with no set yet.`,
    `Resharing of guardian set ${roster.previous.version} to set ${roster.version} (the same group key ${roster.previous.groupKey}; this guardian is dealt a share of it) of a ${roster.t}-of-${roster.n} network, roster digest ${rosterDigest(roster)}:`,
    ...describeFirstRoster(roster).slice(1),
  ];
  const record = approvalRecord('reshare', roster.previous.version, me, roster);
  return { id: me.id, lines, record, ...(write ? { path: writeApproval(dir, record) } : {}) };
}

/**
 * Why the guardian of `dir` must not join `roster` given on its own command line (`guardian start
 * --roster`): without a set, it joins only a roster its operator approved as a DKG here (`approve
 * --kind dkg`), exactly as a first roster sent by a coordinator. Null: approved, or the directory
 * holds a set (the roster is then not used).
 */
export function startRosterProblem(dir: string, roster: GuardianSetBody): string | null {
  if (loadInstalledSets(dir).length > 0) return null;
  if (!existsSync(join(dir, 'identity.json')))
    return `${dir} holds no identity key for the roster to name; make the guardian with \`guardian init\` first`;
  const identityKey = loadIdentity(join(dir, 'identity.json')).publicKey;
  const ask = { change: 'dkg' as const, setVersion: dkgFrom(roster), identityKey, roster };
  return approvalProblem(readApprovals(dir, 'dkg'), ask);
}

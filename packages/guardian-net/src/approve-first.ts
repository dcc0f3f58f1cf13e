// The operator's approval of a network's first roster (`approve --kind dkg`): a guardian made by
// `guardian init` holds no set yet, and joins the first DKG only for the exact roster its own
// operator recorded here (first-roster.ts checks it on every `dkg/roster`). The embedded network's
// one operator records it for each of its guardians through the same function (cli-dkg.ts).
import { join } from 'node:path';
import { approvalRecord, rosterDigest, type Approval } from './approval';
import { writeApproval } from './approval-files';
import { readPublicPart } from './guardian-init';
import type { GuardianSetBody, Member } from './guardian-set';
import { loadIdentity } from './identity';
import { loadInstalledSets } from './set-files';

const seat = (m: Member) =>
  `guardian ${m.id} (${m.name}) identity key ${m.identityKey} at ${m.url}`;

/** The lines an operator reads before approving a first roster. */
export function describeFirstRoster(roster: GuardianSetBody): string[] {
  return [
    `First DKG (a new group key) of a ${roster.t}-of-${roster.n} network, roster digest ${rosterDigest(roster)}:`,
    `  threshold t: ${roster.t}`,
    `  size n: ${roster.n}`,
    ...roster.members.map((m) => `  member:  ${seat(m)}`),
    ...roster.coordinators.map((c) => `  coordinator: ${c.name} identity key ${c.identityKey}`),
  ];
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
  if (roster.version !== 0 || roster.frost || roster.groupKey || roster.previous)
    throw new Error(
      'This roster cannot be approved as a first DKG: a first roster is version 0, with no group key and no previous set.',
    );
  const me = roster.members.find((m) => m.identityKey === identity.publicKey);
  if (!me)
    throw new Error(
      `This roster cannot be approved: it does not name the guardian of ${dir} (identity key ${identity.publicKey}).`,
    );
  const own = readPublicPart(dir);
  if (own && own.url !== me.url)
    throw new Error(
      `This roster cannot be approved: it gives this guardian the URL ${me.url}, but its own is ${own.url}.`,
    );
  const lines = [`Guardian ${me.id} of the roster (${dir}).`, ...describeFirstRoster(roster)];
  const record = approvalRecord('dkg', 0, me, roster);
  return { id: me.id, lines, record, ...(write ? { path: writeApproval(dir, record) } : {}) };
}

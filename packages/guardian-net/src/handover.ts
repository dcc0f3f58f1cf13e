// A running guardian's side of a rotation (docs/protocol.md, "Guardian rotation"). A guardian of
// set v joins the DKG of set v+1 only for a roster built on its own set that names it with its own
// identity key, that keeps the rules no approval lifts and that its own operator approved exactly
// (approval.ts), and signs the handover to set v+1 only after checking that set itself: it is its
// own DKG's result of that approved roster, signed by every member, and made from its own set.
import { approvalProblem, membershipRuleProblem, type FoundApproval } from './approval';
import { canonicalJson } from './canonical';
import type { DkgRounds } from './dkg-rounds';
import { ProtocolError } from './envelope';
import {
  parseSetBody,
  previousOf,
  setBodyJson,
  signHandover,
  verifySet,
  type GuardianSet,
  type GuardianSetBody,
} from './guardian-set';
import type { Identity } from './identity';
import type { MessageBody } from './messages';

function refuse(message: string): never {
  throw new ProtocolError('refused', message);
}

export function checkFollows(body: GuardianSetBody, current: GuardianSet): void {
  if (body.version !== current.version + 1)
    refuse(`the next set must be version ${current.version + 1}, not ${body.version}`);
  const expected = previousOf(current);
  const named = body.previous;
  if (
    !named ||
    named.version !== expected.version ||
    named.groupKey !== expected.groupKey ||
    named.digest !== expected.digest
  )
    refuse(`the next set was not made from this guardian's set ${current.version}`);
}

/**
 * A membership change of this guardian's set to `roster`: the rules first (an approval cannot lift
 * them), then its own operator's approval of exactly this roster among `approvals` (its files).
 */
export function checkApproved(
  current: GuardianSet,
  identity: Identity,
  roster: GuardianSetBody,
  approvals: FoundApproval[],
): void {
  const rule = membershipRuleProblem(current, roster);
  if (rule) refuse(`this guardian refuses the roster of set ${roster.version}: ${rule}`);
  const ask = { change: 'rotation' as const, setVersion: current.version, roster };
  const problem = approvalProblem(approvals, { ...ask, identityKey: identity.publicKey });
  if (problem) refuse(problem);
}

/**
 * `rotate/roster` `{roster}`: the roster of set v+1, if this guardian (id, key) is in it and its
 * operator approved exactly it (`approvals`: the files of its `approvals/`).
 */
export function acceptRoster(
  current: GuardianSet,
  id: number,
  identity: Identity,
  raw: MessageBody<'rotate/roster'>,
  approvals: FoundApproval[],
): GuardianSetBody {
  let roster: GuardianSetBody;
  try {
    roster = parseSetBody(raw.roster);
  } catch (e) {
    return refuse(`bad roster: ${(e as Error).message}`);
  }
  if (roster.frost || roster.groupKey) refuse('a roster has no group key yet');
  checkFollows(roster, current);
  if (roster.members[id - 1]?.identityKey !== identity.publicKey)
    refuse(`guardian ${id} is not in the next roster with this identity key`);
  checkApproved(current, identity, roster, approvals);
  return roster;
}

/** The same roster, so a repeated `rotate/roster` does not restart a DKG under way. */
export function sameRoster(a: GuardianSetBody, b: GuardianSetBody): boolean {
  return canonicalJson(setBodyJson(a)) === canonicalJson(setBodyJson(b));
}

/**
 * `set/handover`: this guardian's handover signature over the next set, once it checked it. It
 * signs only a set it is a member of and whose DKG it took part in: exactly the roster it accepted
 * with its own DKG result (so a coordinator cannot have set v hand over to a set of strangers; it
 * takes t guardians of set v that stay), signed by every member, and made from its own set. Its
 * operator's approval of that roster is checked again: one withdrawn meanwhile stops the handover.
 */
export function handoverFor(
  current: GuardianSet,
  identity: Identity,
  raw: unknown,
  dkg: DkgRounds | undefined,
  approvals: FoundApproval[],
): unknown {
  if (!dkg || dkg.roster.version !== current.version + 1)
    refuse(`this guardian takes part in no DKG for set ${current.version + 1}`);
  checkApproved(current, identity, dkg.roster, approvals);
  let next: GuardianSet;
  try {
    dkg.ownSetBody(raw);
    next = verifySet(raw, { everyMember: true });
  } catch (e) {
    if (e instanceof ProtocolError) throw e;
    return refuse(`the next set does not verify: ${(e as Error).message}`);
  }
  checkFollows(next, current);
  return { signature: signHandover(next, identity.secretKey) };
}

/**
 * `set/install` {set, previous?}: the set its own DKG made, with every member's signature (a
 * rotation's also with its handover, checked against the previous set: its own, or for a new
 * member the one sent, which must be the set the roster names).
 */
export function installableSet(
  dkg: DkgRounds,
  body: MessageBody<'set/install'>,
  ownSet: (version: number) => GuardianSet | undefined,
): GuardianSet {
  const raw = body.set;
  const own = dkg.ownSetBody(raw);
  try {
    const previous = own.previous
      ? (ownSet(own.previous.version) ?? body.previous ?? null)
      : undefined;
    if (previous === null) throw new Error('a rotation installs with the previous set');
    return verifySet(raw, { everyMember: true, ...(previous === undefined ? {} : { previous }) });
  } catch (e) {
    throw new ProtocolError('refused', (e as Error).message);
  }
}

// A guardian made by `guardian init` starts with no set and waits for its first roster: the
// coordinator sends `dkg/roster` {roster, session}, signed by a coordinator the roster names. The
// guardian does not know that coordinator beforehand, so the roster in the message says who may
// send it, and `acceptFirstRoster` decides whether this guardian joins: the one place where a
// guardian accepts a roster for a first DKG. It joins only once its own operator approved exactly
// that roster on its machine (`approve --kind dkg`, approve-first.ts): a roster's digest covers
// every member, t, n and the coordinators, so a coordinator cannot change any of them afterwards.
import { approvalProblem } from './approval';
import { readApprovals } from './approval-files';
import { ProtocolError, openEnvelope, type Auth, type Payload } from './envelope';
import { checkSession } from './dkg-share-box';
import { parseSetBody, type GuardianSetBody } from './guardian-set';
import { readPublicPart, type PublicPart } from './guardian-init';
import type { Identity } from './identity';
import { parseMessageBody } from './messages';

export interface FirstRoster {
  roster: GuardianSetBody;
  session: string;
  /** this guardian's id in the roster */
  id: number;
}

function refuse(message: string): never {
  throw new ProtocolError('refused', message);
}

/**
 * Whether this guardian joins a first DKG for `raw` ({roster, session}) sent by `from`: a version-0
 * roster with no group key, sent by one of its own coordinators, naming this guardian exactly once
 * with its own identity key and (when its directory has its public part) its own URL.
 */
export function acceptFirstRoster(
  raw: unknown,
  self: Identity,
  from: string,
  own: PublicPart | null,
): FirstRoster {
  const body = parseMessageBody('dkg/roster', raw);
  const session = checkSession(body.session);
  let roster: GuardianSetBody;
  try {
    roster = parseSetBody(body.roster);
  } catch (e) {
    return refuse(`bad roster: ${(e as Error).message}`);
  }
  if (roster.version !== 0 || roster.frost || roster.groupKey || roster.previous)
    refuse('a first roster is version 0, with no group key and no previous set');
  if (!roster.coordinators.some((c) => c.identityKey === from))
    refuse('the roster does not name its sender as a coordinator');
  const me = roster.members.find((m) => m.identityKey === self.publicKey);
  if (!me) refuse('this guardian is not in the roster with its identity key');
  if (own && own.url !== me.url)
    refuse(`the roster gives this guardian the URL ${me.url}, but its own is ${own.url}`);
  return { roster, session, id: me.id };
}

/** Opens a `dkg/roster` message, its sender checked against the coordinators its roster names. */
export function openFirstRoster(raw: string, self: Identity): { payload: Payload; auth: Auth } {
  let senders: string[] = [];
  try {
    const wire = JSON.parse(raw) as { payload: string };
    const payload = JSON.parse(wire.payload) as { type?: unknown; body?: { roster?: unknown } };
    if (payload.type === 'dkg/roster')
      senders = parseSetBody(payload.body?.roster).coordinators.map((c) => c.identityKey);
  } catch {
    // openEnvelope names what is wrong with it
  }
  const opened = openEnvelope(raw, {
    self: self.publicKey,
    secretKey: self.secretKey,
    knownSenders: new Set(senders),
  });
  if (opened.payload.type !== 'dkg/roster' || opened.auth !== 'sig')
    throw new ProtocolError(
      'not-ready',
      'this guardian has no set yet; it waits for its first roster',
    );
  return opened;
}

/** The message type of a raw envelope, for routing only (nothing is trusted from it). */
export function peekType(raw: string): string | undefined {
  try {
    const wire = JSON.parse(raw) as { payload?: unknown };
    const type = (JSON.parse(String(wire.payload)) as { type?: unknown }).type;
    return typeof type === 'string' ? type : undefined;
  } catch {
    return undefined;
  }
}

/** A `dkg/roster` message opened, remembered against replay, and accepted (or refused). */
export async function receiveFirstRoster(
  raw: string,
  o: {
    identity: Identity;
    dir: string;
    /** the id it was started with, if any */
    startedAs: number | undefined;
    /** its operator's pin: the one coordinator whose first roster it joins */
    coordinator: string | undefined;
    remember: (from: string, nonce: string, ts: number) => Promise<boolean> | boolean;
  },
): Promise<FirstRoster & { payload: Payload; auth: Auth }> {
  const { payload, auth } = openFirstRoster(raw, o.identity);
  if (!(await o.remember(payload.from, payload.nonce, payload.ts)))
    throw new ProtocolError('replayed', 'message nonce was already used', 409);
  if (payload.setVersion !== 0)
    throw new ProtocolError('refused', 'a first roster names guardian set version 0', 409);
  if (o.coordinator !== undefined && payload.from !== o.coordinator)
    refuse('this guardian joins a first roster from the coordinator its operator named only');
  const own = readPublicPart(o.dir);
  const first = acceptFirstRoster(payload.body, o.identity, payload.from, own);
  if (o.startedAs !== undefined && o.startedAs !== first.id)
    refuse(`this guardian was started as guardian ${o.startedAs}, not ${first.id}`);
  const ask = { change: 'dkg' as const, setVersion: 0, identityKey: o.identity.publicKey };
  const problem = approvalProblem(readApprovals(o.dir, 'dkg'), { ...ask, roster: first.roster });
  if (problem) refuse(problem);
  return { ...first, payload, auth };
}

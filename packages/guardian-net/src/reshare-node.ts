// A guardian's side of a resharing among processes (docs/guardian-network.md, "Changing members
// with the same group key"). The coordinator sends the spec (`reshare/roster`), asks each dealer to
// deal (`reshare/send`: the dealer posts one signed `reshare/deal` to each next member itself, its
// sub-share sealed to that member), asks each next member to combine (`reshare/finish`) and to sign
// the next set (`reshare/sign`), asks the staying members of the installed set to hand over
// (`reshare/handover`), and installs (`reshare/install`). A member of the installed set takes part
// only for a roster its own operator approved as a `reshare` (as a `refresh` when the roster keeps
// every member in its seat: every share dealt again, the same members); every message of the resharing names
// the installed set's version, so a new member (no set yet) checks its senders against that set.
// Nothing is written before the install: a run stopped earlier leaves every member on its set.
import type { FrostSecret } from '@noble/curves/abstract/frost.js';
import {
  approvalProblem,
  isRefresh,
  membershipRuleProblem,
  type FoundApproval,
  type MembershipChange,
} from './approval';
import { parseRosterHead, refuse, RosterChangeSide, sameJson } from './roster-change';
import {
  openEnvelope,
  ProtocolError,
  sealMessage,
  type Auth,
  type Payload,
  type Wire,
} from './envelope';
import { frostIdentifier, type FrostPublicJson } from './frost';
import {
  parseSetBody,
  setBodyJson,
  signHandover,
  signSet,
  verifySet,
  type GuardianSet,
  type GuardianSetBody,
} from './guardian-set';
import { checkFollows } from './handover';
import type { Identity } from './identity';
import { dealBodies, ReshareRecipient, type ReshareSpec } from './reshare-rounds';
import { catchUpShare } from './reshare-deals';
import { callParty } from './transport';
import { parseMessageBody, type MessageBody, type MessageHandlers } from './messages';

/** What the guardian node lends its resharing side. */
export interface ReshareHost {
  identity: () => Identity;
  /** its newest installed set and share, none while it waits for its first */
  current: () => { set: GuardianSet; share: FrostSecret } | undefined;
  /** its operator's approvals of `change`, read from its own directory at each ask */
  approvals: (change: MembershipChange) => FoundApproval[];
  /** writes the set and share (the set file commits it) and starts signing for it */
  install: (set: GuardianSet, id: number, secret: FrostSecret) => void;
  log: (event: Record<string, unknown>) => void;
  /** a test fixture's dishonest dealing (the malicious guardian's), else none */
  tamperDeal?: (subShare: Uint8Array, to: number) => Uint8Array;
}

/** How long a dealer waits for each next member to take its deal (under the run's step time). */
const DEAL_POST_MS = 5_000;

interface Under {
  spec: ReshareSpec;
  recipient?: ReshareRecipient;
  result?: { public: FrostPublicJson; signingShare: Uint8Array };
}

/** The spec of `reshare/roster` {session, current, next, dealers}, parsed (nothing trusted yet). */
function parseSpec(raw: unknown): ReshareSpec {
  const { body: b, session, current, next } = parseRosterHead(raw, 'resharing roster');
  const ids = (v: unknown) => Array.isArray(v) && v.every((d) => Number.isInteger(d));
  const { dealers, absent = [] } = b;
  if (!ids(dealers) || !ids(absent))
    throw new ProtocolError('malformed', 'the dealers and absent members of a resharing are guardian ids'); // prettier-ignore
  return { session, current, next, dealers: dealers as number[], absent: absent as number[] };
}

export class GuardianReshare extends RosterChangeSide<'reshare', Under, ReshareHost> {
  constructor(host: ReshareHost) {
    super(host, 'resharing', 'reshare');
  }

  /** The parties of a resharing under way (the node's envelope check knows them). */
  parties(): string[] {
    const s = this.under?.spec;
    if (!s) return [];
    return [...s.current.members, ...s.current.coordinators, ...s.next.members].map(
      (p) => p.identityKey,
    );
  }

  protected ownHandlers(): MessageHandlers {
    return { 'reshare/catch-up': (b) => this.catchUp(b) };
  }

  /** `reshare/deal` from a dealer (its identity key checked by the envelope). */
  deal(senderKey: string, body: MessageBody<'reshare/deal'>): unknown {
    const under = this.need(body);
    if (!under.recipient) refuse('this guardian is not in the next roster');
    return under.recipient.receive(senderKey, body);
  }

  /**
   * Its operator's approval of exactly this roster, as a refresh when it keeps every member and
   * seat (else as a resharing), and the rules no approval lifts.
   */
  private checkApproved(current: GuardianSet, next: GuardianSetBody): void {
    const rule = membershipRuleProblem(current, next);
    if (rule) refuse(`this guardian refuses the roster of set ${next.version}: ${rule}`);
    const change: MembershipChange = isRefresh(current, next) ? 'refresh' : 'reshare';
    const ask = { change, setVersion: current.version, roster: next };
    const problem = approvalProblem(this.host.approvals(change), {
      ...ask,
      identityKey: this.host.identity().publicKey,
    });
    if (problem) refuse(problem);
  }

  /**
   * A new member's (no set yet) check of a roster dealt from `current`: it follows `current`,
   * names this guardian, keeps the rules no approval lifts, and its operator approved exactly it
   * as a `reshare` (`approve --kind reshare` on its own machine, approve-first.ts).
   */
  private checkNewMember(current: GuardianSet, next: GuardianSetBody): void {
    const me = this.host.identity().publicKey;
    if (current.members.some((m) => m.identityKey === me))
      refuse('this guardian lost its set; it is repaired, not dealt a new share');
    checkFollows(next, current);
    const rule = membershipRuleProblem(current, next);
    if (rule) refuse(`this guardian refuses the roster of set ${next.version}: ${rule}`);
    if (!next.members.some((m) => m.identityKey === me)) return;
    const ask = { change: 'reshare' as const, setVersion: current.version, roster: next };
    const problem = approvalProblem(this.host.approvals('reshare'), { ...ask, identityKey: me });
    if (problem) refuse(problem);
  }

  /** `reshare/roster`: takes part in this resharing (a new session replaces one under way). */
  protected roster(raw: MessageBody<'reshare/roster'>): unknown {
    const spec = parseSpec(raw);
    const own = this.host.current()?.set;
    const me = this.host.identity().publicKey;
    if (own) {
      if (!sameJson(setBodyJson(own), setBodyJson(spec.current)))
        refuse(`the resharing starts from another set than this guardian's set ${own.version}`);
      const seat = (b: GuardianSetBody) => b.members.find((m) => m.identityKey === me)?.id;
      if (seat(spec.next) !== seat(own))
        refuse('a resharing keeps this guardian in its seat, or it takes no part');
      this.checkApproved(own, spec.next);
      checkFollows(spec.next, spec.current);
    } else this.checkNewMember(spec.current, spec.next);
    const inNext = spec.next.members.some((m) => m.identityKey === me);
    const recipient = inNext ? new ReshareRecipient(this.host.identity(), spec) : undefined;
    if (this.under?.spec.session !== spec.session) {
      this.under = { spec, ...(recipient ? { recipient } : {}) };
      this.host.log({ event: 'reshare-joined', session: spec.session, version: spec.next.version });
    }
    return { joined: spec.next.version };
  }

  /**
   * `reshare/send` {session}: deals its weighted share to every next member, each directly but the
   * absent ones, and answers every deal it signed (each sealed to its recipient) with the members
   * it could not reach: the coordinator keeps them for a member that misses the install.
   */
  protected async send(raw: MessageBody<'reshare/send'>): Promise<unknown> {
    const { spec, recipient } = this.need(raw);
    const own = this.host.current();
    const identity = this.host.identity();
    const me = own?.set.members.find((m) => m.identityKey === identity.publicKey);
    if (!own || !me || !spec.dealers.includes(me.id)) refuse('this guardian is not a dealer here');
    const bodies = dealBodies(identity, me.id, own.share.signingShare, spec, this.host.tamperDeal);
    const setVersion = spec.current.version;
    const deals: Record<string, Wire> = {};
    for (const m of spec.next.members) {
      const fields = { type: 'reshare/deal', from: identity.publicKey, to: m.identityKey, setVersion }; // prettier-ignore
      deals[String(m.id)] = sealMessage({ ...fields, body: bodies.get(m.id)! }, identity.secretKey);
    }
    const posted = spec.next.members.filter((m) => !(spec.absent ?? []).includes(m.id));
    const sent = await Promise.allSettled(
      posted.map(async (m) => {
        if (m.identityKey === identity.publicKey)
          return recipient!.receive(m.identityKey, parseMessageBody('reshare/deal', bodies.get(m.id)!)); // prettier-ignore
        const sealed = deals[String(m.id)]!;
        const to = { url: m.url, identity, to: m.identityKey, setVersion, body: null };
        return callParty({ ...to, type: 'reshare/deal', sealed, timeoutMs: DEAL_POST_MS });
      }),
    );
    const unreached = posted.filter((_, i) => sent[i]!.status === 'rejected').map((m) => m.id);
    if (unreached.length > 0) this.host.log({ event: 'reshare-unreached', guardians: unreached });
    return { dealt: posted.map((m) => m.id).filter((id) => !unreached.includes(id)), deals, unreached }; // prettier-ignore
  }

  /** `reshare/finish` {session}: the next set's public package, or the dealer whose deal failed. */
  protected finish(raw: MessageBody<'reshare/finish'>): unknown {
    const under = this.need(raw);
    if (!under.recipient) refuse('this guardian is not in the next roster');
    const done = under.recipient.finish();
    if ('blame' in done) return done;
    under.result = { public: done.public, signingShare: done.signingShare };
    return { public: done.public };
  }

  /** The next set as its own resharing made it: the approved roster, its package, the same key. */
  private ownSet(under: Under, raw: unknown): GuardianSetBody {
    if (!under.result) throw new ProtocolError('not-ready', 'this guardian has not combined yet');
    let body: GuardianSetBody;
    try {
      body = parseSetBody(raw);
    } catch (e) {
      return refuse(`bad next set: ${(e as Error).message}`);
    }
    const { frost: _f, groupKey: _g, ...roster } = body;
    if (!sameJson(setBodyJson(roster), setBodyJson(under.spec.next)))
      refuse('the next set is not the roster of this resharing');
    if (!sameJson(body.frost, under.result.public) || body.groupKey !== under.spec.current.groupKey)
      refuse('the next set is not the result of this guardian’s own resharing');
    return body;
  }

  /** `reshare/sign` {session, set}: its signature over the next set it computed itself. */
  protected sign(raw: MessageBody<'reshare/sign'>): unknown {
    const under = this.need(raw);
    const body = this.ownSet(under, raw.set);
    return { signature: signSet(body, this.host.identity().secretKey) };
  }

  /**
   * `reshare/handover` {session, set}: a staying member of the installed set hands over to a set
   * signed by t of its members, with the same group key, the roster its operator approved.
   */
  protected handover(raw: MessageBody<'reshare/handover'>): unknown {
    const under = this.need(raw);
    const own = this.host.current()?.set;
    if (!own) refuse('this guardian holds no set to hand over');
    let next: GuardianSet;
    try {
      next = verifySet(raw.set);
    } catch (e) {
      return refuse(`the next set does not verify: ${(e as Error).message}`);
    }
    checkFollows(next, own);
    this.checkApproved(own, under.spec.next);
    this.ownSet(under, next);
    return { signature: signHandover(next, this.host.identity().secretKey) };
  }

  /** `reshare/install` {session, set}: the next set with t signatures and t of the handover. */
  protected install(raw: MessageBody<'reshare/install'>): unknown {
    const under = this.need(raw);
    let set: GuardianSet;
    try {
      set = verifySet(raw.set, { previous: under.spec.current });
    } catch (e) {
      return refuse(`the next set does not verify: ${(e as Error).message}`);
    }
    this.ownSet(under, set);
    const id = set.members.find((m) => m.identityKey === this.host.identity().publicKey)!.id;
    const secret = {
      identifier: frostIdentifier(id),
      signingShare: Uint8Array.from(under.result!.signingShare),
    };
    this.host.install(set, id, secret);
    this.under = undefined;
    this.host.log({ event: 'reshare-complete', version: set.version, groupKey: set.groupKey });
    return { installed: true };
  }

  /**
   * `reshare/catch-up`: a member that missed the install (down, or left out of the run) takes the
   * installed set with the share its own deals make, for a roster its operator approved. A staying
   * member deals from its own set; a new member (no set) from the set the message carries as
   * `current`, verified by its members' signatures and sent by one of its coordinators (the
   * node's `openWaitingReshare`).
   */
  private catchUp(raw: MessageBody<'reshare/catch-up'>): unknown {
    const own = this.host.current()?.set;
    let from: GuardianSet;
    let approved: (roster: GuardianSetBody) => void;
    if (own) {
      from = own;
      approved = (roster) => this.checkApproved(own, roster);
    } else {
      try {
        from = verifySet(raw.current);
      } catch (e) {
        return refuse(`bad catch-up: ${(e as Error).message}`);
      }
      approved = (roster) => this.checkNewMember(from, roster);
    }
    const { set, id, secret } = catchUpShare(this.host.identity(), from, raw, approved);
    this.host.install(set, id, secret);
    if (this.under?.spec.next.version === set.version) this.under = undefined;
    this.host.log({ event: 'reshare-caught-up', version: set.version, groupKey: set.groupKey });
    return { installed: true };
  }
}

/** The first messages of a change with the same key that a guardian with no set may take. */
export const WAITING_TYPES = ['reshare/roster', 'repair/roster', 'reshare/catch-up'];

/**
 * Opens a `reshare/roster` or `repair/roster` to a guardian with no set: its sender must be a
 * coordinator of the installed set the message carries (`current`).
 */
export function openWaitingReshare(
  raw: string,
  self: Identity,
  pinned: string | undefined,
): { payload: Payload; auth: Auth } {
  let senders: string[] = [];
  try {
    const wire = JSON.parse(raw) as { payload: string };
    const payload = JSON.parse(wire.payload) as { setVersion?: unknown; body?: { current?: unknown } }; // prettier-ignore
    const current = verifySet(payload.body?.current);
    // Every message of the change names the set it starts from.
    if (payload.setVersion === current.version)
      senders = current.coordinators.map((c) => c.identityKey);
  } catch {
    // openEnvelope names what is wrong with it
  }
  if (pinned !== undefined) senders = senders.filter((s) => s === pinned);
  const opened = openEnvelope(raw, {
    self: self.publicKey,
    secretKey: self.secretKey,
    knownSenders: new Set(senders),
  });
  if (!WAITING_TYPES.includes(opened.payload.type) || opened.auth !== 'sig')
    throw new ProtocolError('not-ready', 'this guardian has no set yet; it waits for its roster');
  return opened;
}

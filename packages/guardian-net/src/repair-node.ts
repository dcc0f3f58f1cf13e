// A guardian's side of a repair among processes (docs/guardian-network.md, "Repair among
// processes"): the guardian that lost its share gets it back from t helpers, and nobody else sees
// it. The coordinator sends the spec (`repair/roster` {session, current, next, helpers, lost}),
// asks each helper to send its masked pieces to the other helpers (`repair/send`: signed
// `repair/piece` messages, helper to helper) and then its sum to the lost guardian (`repair/forward`:
// one signed `repair/sum`), asks the lost guardian to combine (`repair/finish`), has the next set
// signed (`repair/sign`) and handed over (`repair/handover`), and installs it (`repair/install`).
// The next set is the installed set's next version with the same FROST package: the same group key
// and verification shares, the repaired seat's identity key new only when it was lost too. A member
// of the installed set takes part only for a roster its own operator approved as a `repair`.
import type { FrostSecret } from '@noble/curves/abstract/frost.js';
import { approvalProblem } from './approval';
import type { Json } from './canonical';
import { parseRosterHead, refuse, RosterChangeSide, sameJson } from './roster-change';
import { ProtocolError } from './envelope';
import { frostIdentifier } from './frost';
import {
  parseSetBody,
  setBodyJson,
  signHandover,
  signSet,
  verifySet,
  type GuardianSet,
  type GuardianSetBody,
} from './guardian-set';
import type { ReshareHost } from './reshare-node';
import { repairRosterProblem } from './repair-roster';
import { RepairHelper, RepairTarget, type RepairSpec } from './repair-rounds';
import { callParty } from './transport';
import type { MessageBody, MessageHandlers, MessageType } from './messages';

export interface RepairHost extends ReshareHost {
  /** Test fixtures only (a malicious helper): rewrites its repair sum before it is sealed. */
  tamperSum?: (sum: Uint8Array) => Uint8Array;
}

interface WireSpec {
  session: string;
  current: GuardianSet;
  next: GuardianSetBody;
  helpers: number[];
  lost: number;
}

interface Under {
  spec: WireSpec;
  /** the arithmetic's view: the installed set with the repaired seat's (possibly new) identity key */
  math: RepairSpec;
  helper?: RepairHelper;
  target?: RepairTarget;
  /** the lost guardian's rebuilt share, once checked against the set */
  rebuilt?: Uint8Array;
}

function parseSpec(raw: unknown): WireSpec {
  const { body: b, session, current, next } = parseRosterHead(raw, 'repair roster');
  const { helpers, lost } = b;
  if (
    !Array.isArray(helpers) ||
    !helpers.every((h) => Number.isInteger(h)) ||
    !Number.isInteger(lost)
  )
    // prettier-ignore
    throw new ProtocolError('malformed', 'the helpers and the lost guardian of a repair are ids');
  const problem = repairRosterProblem(current, next, lost as number);
  if (problem) refuse(`this is no repair roster: ${problem}`);
  return { session, current, next, helpers: helpers as number[], lost: lost as number };
}

/** A guardian's side of a repair; `body` gives the lost guardian (it holds none) the installed set. */
export class GuardianRepair extends RosterChangeSide<'repair', Under, RepairHost> {
  constructor(host: RepairHost) {
    super(host, 'repair', 'repair');
  }

  parties(): string[] {
    const s = this.under?.spec;
    if (!s) return [];
    return [...s.current.members, ...s.current.coordinators].map((p) => p.identityKey);
  }

  protected ownHandlers(): MessageHandlers {
    return { 'repair/forward': (b) => this.forward(b) };
  }

  /** `repair/piece` from a helper, `repair/sum` to the lost guardian (sender checked by the envelope). */
  fromPeer(
    type: 'repair/piece' | 'repair/sum',
    senderKey: string,
    body: MessageBody<'repair/piece' | 'repair/sum'>,
  ): unknown {
    const under = this.need(body);
    if (type === 'repair/piece' && under.helper) return under.helper.receivePiece(senderKey, body);
    if (type === 'repair/sum' && under.target) return under.target.receiveSum(senderKey, body);
    throw new ProtocolError('not-allowed', `this guardian takes no ${type} here`, 403);
  }

  private me(): string {
    return this.host.identity().publicKey;
  }

  private checkApproved(current: GuardianSet, next: GuardianSetBody): void {
    const ask = { change: 'repair' as const, setVersion: current.version, roster: next };
    const problem = approvalProblem(this.host.approvals('repair'), {
      ...ask,
      identityKey: this.me(),
    });
    if (problem) refuse(problem);
  }

  /** `repair/roster`: a staying member with its operator's approval, or the guardian repaired. */
  protected roster(raw: MessageBody<'repair/roster'>): unknown {
    const spec = parseSpec(raw);
    const own = this.host.current();
    const seat = spec.next.members.find((m) => m.id === spec.lost)!;
    const math: RepairSpec = {
      session: spec.session,
      set: { ...spec.current, members: spec.next.members },
      lost: spec.lost,
      helpers: spec.helpers,
    };
    const under: Under = { spec, math };
    if (own) {
      if (!sameJson(setBodyJson(own.set), setBodyJson(spec.current)))
        refuse(`the repair starts from another set than this guardian's set ${own.set.version}`);
      const id = own.set.members.find((m) => m.identityKey === this.me())!.id;
      if (id === spec.lost) refuse('this guardian holds its share; it needs no repair');
      this.checkApproved(own.set, spec.next);
      if (spec.helpers.includes(id))
        under.helper = new RepairHelper(this.host.identity(), id, own.share.signingShare, math, this.host.tamperSum); // prettier-ignore
    } else {
      if (seat.identityKey !== this.me())
        refuse(`this guardian is not the one repaired at seat ${spec.lost}`);
      under.target = new RepairTarget(this.host.identity(), math);
    }
    if (this.under?.spec.session !== spec.session) {
      this.under = under;
      this.host.log({ event: 'repair-joined', session: spec.session, lost: spec.lost });
    }
    return { joined: spec.next.version };
  }

  private needHelper(raw: { session: string }): { under: Under; helper: RepairHelper } {
    const under = this.need(raw);
    if (!under.helper) refuse('this guardian is no helper of this repair');
    return { under, helper: under.helper };
  }

  private post(under: Under, id: number, type: MessageType, body: Json): Promise<unknown> {
    const to = under.spec.next.members.find((m) => m.id === id)!;
    const fields = { url: to.url, identity: this.host.identity(), to: to.identityKey };
    return callParty({ ...fields, setVersion: under.spec.current.version, type, body, timeoutMs: 10_000 }); // prettier-ignore
  }

  /** `repair/send` {session}: its masked pieces, each to the helper it is for, directly. */
  protected async send(raw: MessageBody<'repair/send'>): Promise<unknown> {
    const { under, helper } = this.needHelper(raw);
    const bodies = helper.pieceBodies();
    await Promise.all([...bodies].map(([id, body]) => this.post(under, id, 'repair/piece', body)));
    return { sent: [...bodies.keys()] };
  }

  /** `repair/forward` {session}: the sum of its pieces, sealed to the lost guardian, directly. */
  private async forward(raw: MessageBody<'repair/forward'>): Promise<unknown> {
    const { under, helper } = this.needHelper(raw);
    await this.post(under, under.spec.lost, 'repair/sum', helper.sumBody());
    return { sent: under.spec.lost };
  }

  /** `repair/finish` {session}: the lost guardian's share rebuilt and checked, or a helper named. */
  protected finish(raw: MessageBody<'repair/finish'>): unknown {
    const under = this.need(raw);
    if (!under.target) refuse('this guardian is not the one repaired');
    const done = under.target.finish();
    if ('blame' in done) return done;
    under.rebuilt = done.signingShare;
    const { verifyingShares } = under.spec.current.frost!;
    return { repaired: verifyingShares[frostIdentifier(under.spec.lost)] };
  }

  /** The next set as this repair makes it: the approved roster and the installed set's package. */
  private ownSet(under: Under, raw: unknown): GuardianSetBody {
    let body: GuardianSetBody;
    try {
      body = parseSetBody(raw);
    } catch (e) {
      return refuse(`bad next set: ${(e as Error).message}`);
    }
    const { frost: _f, groupKey: _g, ...roster } = body;
    const { current, next } = under.spec;
    if (!sameJson(setBodyJson(roster), setBodyJson(next)))
      refuse('the next set is not the roster of this repair');
    if (!sameJson(body.frost, current.frost) || body.groupKey !== current.groupKey)
      refuse('the next set does not keep the installed set’s key and verification shares');
    return body;
  }

  /** This guardian's share for the next set: its own, or the one just rebuilt. */
  private share(under: Under): Uint8Array {
    if (under.target) {
      if (!under.rebuilt) throw new ProtocolError('not-ready', 'this guardian is not repaired yet');
      return under.rebuilt;
    }
    return this.host.current()!.share.signingShare;
  }

  /** `repair/sign` {session, set}: its signature over the next set, once it holds its share. */
  protected sign(raw: MessageBody<'repair/sign'>): unknown {
    const under = this.need(raw);
    this.share(under);
    const body = this.ownSet(under, raw.set);
    return { signature: signSet(body, this.host.identity().secretKey) };
  }

  /** `repair/handover` {session, set}: a staying member of the installed set hands over. */
  protected handover(raw: MessageBody<'repair/handover'>): unknown {
    const under = this.need(raw);
    const own = this.host.current()?.set;
    if (!own || under.target) refuse('this guardian holds no set to hand over');
    let next: GuardianSet;
    try {
      next = verifySet(raw.set);
    } catch (e) {
      return refuse(`the next set does not verify: ${(e as Error).message}`);
    }
    this.checkApproved(own, under.spec.next);
    this.ownSet(under, next);
    return { signature: signHandover(next, this.host.identity().secretKey) };
  }

  /** `repair/install` {session, set}: the next set with t signatures and t of the handover. */
  protected install(raw: MessageBody<'repair/install'>): unknown {
    if (this.host.current() && this.under?.spec.session !== raw.session)
      return this.installMissed(raw);
    const under = this.need(raw);
    let set: GuardianSet;
    try {
      set = verifySet(raw.set, { previous: under.spec.current });
    } catch (e) {
      return refuse(`the next set does not verify: ${(e as Error).message}`);
    }
    this.ownSet(under, set);
    const id = set.members.find((m) => m.identityKey === this.me())!.id;
    const secret: FrostSecret = {
      identifier: frostIdentifier(id),
      signingShare: Uint8Array.from(this.share(under)),
    };
    this.host.install(set, id, secret);
    this.under = undefined;
    this.host.log({ event: 'repair-complete', version: set.version, repaired: under.spec.lost });
    return { installed: true };
  }

  /**
   * `repair/install` to a member of the installed set that took no part in the repair (it did not
   * answer in time). A repair changes no other member's share, so it installs the next set with
   * its own share, once the set verifies against its own (t signatures and t of the handover),
   * keeps its package, key and this guardian's seat, and its operator approved exactly that roster.
   */
  private installMissed(raw: MessageBody<'repair/install'>): unknown {
    const own = this.host.current()!;
    let set: GuardianSet;
    try {
      set = verifySet(raw.set, { previous: own.set });
    } catch (e) {
      return refuse(`the next set does not verify: ${(e as Error).message}`);
    }
    if (!sameJson(set.frost, own.set.frost) || set.groupKey !== own.set.groupKey)
      refuse('the next set does not keep the installed set’s key and verification shares');
    const id = own.set.members.find((m) => m.identityKey === this.me())!.id;
    if (set.members[id - 1]?.identityKey !== this.me())
      refuse('the next set does not keep this guardian in its seat');
    const { frost: _f, groupKey: _g, signatures: _s, handover: _h, ...roster } = set;
    this.checkApproved(own.set, roster);
    const secret = { identifier: frostIdentifier(id), signingShare: Uint8Array.from(own.share.signingShare) }; // prettier-ignore
    this.host.install(set, id, secret);
    this.host.log({ event: 'repair-complete', version: set.version, missed: true });
    return { installed: true };
  }
}

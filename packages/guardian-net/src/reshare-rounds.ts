// A guardian's side of a resharing, as message bodies in and out (the transport carries them as
// signed `reshare/deal` messages, one per dealer and new member). A dealer (a member of the
// installed set) deals its Lagrange-weighted share to the next roster: its polynomial's Feldman
// commitments in clear, each sub-share sealed to its recipient as the DKG seals its shares
// (dkg-share-box.ts, under a key of that pair and this session). A new member checks every deal
// against the installed set's public package and its own sub-share, then adds them up; the result
// is refused unless it reproduces the installed group key (reshare-math.ts).
import type { FrostPublic } from '@noble/curves/abstract/frost.js';
import { bytesToHex, parseHex, type Json } from './canonical';
import { ProtocolError } from './envelope';
import { open, seal, shareKey, SESSION_RE } from './dkg-share-box';
import { frostIdentifier, publicToJson, type FrostPublicJson } from './frost';
import type { GuardianSet, GuardianSetBody } from './guardian-set';
import type { Identity } from './identity';
import {
  BlameError,
  checkDealerCommitments,
  checkSubShare,
  combinePublic,
  combineShare,
  dealReshare,
  pointFromBytes,
  scalarFromBytes,
  scalarToBytes,
  type CurvePoint,
} from './reshare-math';
import type { MessageBody } from './messages';

/** One resharing: the installed set, the roster it moves to, the dealers, and the session. */
export interface ReshareSpec {
  session: string;
  current: GuardianSet;
  next: GuardianSetBody;
  /** ids in `current` of the members that deal: at least current.t of them */
  dealers: number[];
  /** ids in `next` of the members left out of this run (absent): the dealers post them nothing */
  absent?: number[];
}

/** The sub-share keys are the DKG's, bound to this purpose so a DKG box never opens here. */
const sessionKey = (session: string): string => `reshare/${session}`;

/** The spec checked before any work: a session, t dealers of the set, and the same group key. */
export function checkSpec(s: ReshareSpec): void {
  if (!SESSION_RE.test(s.session))
    throw new ProtocolError('malformed', 'a resharing session is 16 bytes of hex');
  const ids = new Set(s.dealers);
  if (ids.size !== s.dealers.length || s.dealers.length < s.current.t)
    throw new ProtocolError('refused', `a resharing needs ${s.current.t} distinct dealers`);
  for (const d of s.dealers)
    if (!s.current.members.some((m) => m.id === d))
      throw new ProtocolError('refused', `dealer ${d} is not a member of the installed set`);
  if (s.next.frost || s.next.groupKey)
    throw new ProtocolError('malformed', 'a resharing roster carries no key of its own');
  for (const a of s.absent ?? [])
    if (s.dealers.includes(a) || !s.next.members.some((m) => m.id === a))
      throw new ProtocolError('refused', `guardian ${a} cannot be absent from this resharing`);
}

/** Dealer `dealerId`'s `reshare/deal` body for each member of the next roster, by its new id. */
export function dealBodies(
  identity: Identity,
  dealerId: number,
  signingShare: Uint8Array,
  s: ReshareSpec,
  tamper?: (subShare: Uint8Array, to: number) => Uint8Array,
): Map<number, Json> {
  checkSpec(s);
  if (!s.dealers.includes(dealerId)) throw new ProtocolError('refused', 'not a dealer here');
  const newIds = s.next.members.map((m) => m.id);
  const deal = dealReshare(dealerId, scalarFromBytes(signingShare), s.dealers, newIds, s.next.t);
  const commitments = deal.commitments.map((c) => bytesToHex(c.toBytes(true)));
  const out = new Map<number, Json>();
  for (const m of s.next.members) {
    const plain = scalarToBytes(deal.subShares.get(m.id)!);
    const key = shareKey(identity, m.identityKey, sessionKey(s.session));
    const sealed = seal(
      key,
      identity.publicKey,
      m.identityKey,
      tamper ? tamper(plain, m.id) : plain,
    );
    out.set(m.id, { session: s.session, dealer: dealerId, commitments, box: sealed });
  }
  return out;
}

interface Received {
  commitments: CurvePoint[];
  box: unknown;
}

/** A new member's collection of deals, from the first to the combined share. */
export class ReshareRecipient {
  private readonly deals = new Map<number, Received>();

  constructor(
    private readonly identity: Identity,
    private readonly spec: ReshareSpec,
  ) {
    checkSpec(spec);
    if (!spec.next.members.some((m) => m.identityKey === identity.publicKey))
      throw new ProtocolError('refused', 'this guardian is not in the next roster');
  }

  private get myId(): number {
    return this.spec.next.members.find((m) => m.identityKey === this.identity.publicKey)!.id;
  }

  /**
   * A deal from the member whose identity key signed the message (`senderKey`, checked by the
   * transport). Malformed, foreign-session, out-of-set and second deals are refused here, before
   * any curve arithmetic.
   */
  receive(senderKey: string, b: MessageBody<'reshare/deal'>): { received: true } {
    if (b.session !== this.spec.session)
      throw new ProtocolError('refused', 'this deal belongs to another resharing session');
    const dealer = this.spec.current.members.find((m) => m.id === b.dealer);
    if (!dealer || !this.spec.dealers.includes(dealer.id))
      throw new ProtocolError('refused', 'the deal names no dealer of this resharing');
    if (dealer.identityKey !== senderKey)
      throw new ProtocolError(
        'refused',
        `the deal of guardian ${dealer.id} is signed by another key`,
      );
    if (this.deals.has(dealer.id))
      throw new ProtocolError('replayed', `guardian ${dealer.id} already dealt`, 409);
    if (!Array.isArray(b.commitments) || b.commitments.length !== this.spec.next.t)
      throw new ProtocolError('malformed', `a deal commits to ${this.spec.next.t} points`);
    let commitments: CurvePoint[];
    try {
      commitments = b.commitments.map((c) => pointFromBytes(parseHex(c, 33, 'commitment')));
    } catch {
      throw new ProtocolError('malformed', 'a deal commitment is not a curve point');
    }
    this.deals.set(dealer.id, { commitments, box: b.box });
    return { received: true };
  }

  /**
   * The new share and the next set's public package once every dealer's deal is in; a deal that
   * fails names its dealer (`blame`), and nothing is kept.
   */
  finish():
    | { public: FrostPublicJson; frost: FrostPublic; signingShare: Uint8Array }
    | { blame: { guardian: number; why: string; key: string } } {
    const { spec } = this;
    const missing = spec.dealers.filter((d) => !this.deals.has(d));
    if (missing.length > 0)
      throw new ProtocolError('not-ready', `no deal yet from guardian ${missing.join(', ')}`);
    const subs: bigint[] = [];
    try {
      for (const d of spec.dealers) {
        const got = this.deals.get(d)!;
        const dealer = spec.current.members.find((m) => m.id === d)!;
        const y = pointFromBytes(
          parseHex(spec.current.frost!.verifyingShares[frostIdentifier(d)], 33),
        );
        checkDealerCommitments(d, got.commitments, y, spec.dealers, spec.next.t);
        const key = shareKey(this.identity, dealer.identityKey, sessionKey(spec.session));
        const plain = open(key, dealer.identityKey, this.identity.publicKey, got.box);
        if (!plain) throw new BlameError(d, `the sub-share of guardian ${d} does not open`);
        const sub = scalarFromBytes(plain);
        checkSubShare(d, this.myId, sub, got.commitments);
        subs.push(sub);
      }
    } catch (e) {
      if (!(e instanceof BlameError)) throw e;
      // That pair's key of this session, so the coordinator can open the sub-share and judge.
      const dealer = spec.current.members.find((m) => m.id === e.culprit)!;
      const key = bytesToHex(shareKey(this.identity, dealer.identityKey, sessionKey(spec.session)));
      return { blame: { guardian: e.culprit, why: e.message, key } };
    }
    const newIds = spec.next.members.map((m) => m.id);
    const frost = combinePublic(
      spec.dealers.map((d) => this.deals.get(d)!.commitments),
      newIds,
      spec.next.t,
      spec.current.frost!.commitments[0]!,
    );
    const share = combineShare(this.myId, subs, frost);
    return { public: publicToJson(frost), frost, signingShare: scalarToBytes(share) };
  }
}
